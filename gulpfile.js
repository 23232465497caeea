const { series, src, dest } = require('gulp');

// tsc compiles the TypeScript; n8n also needs the icons next to the compiled files.
function copyNodeIcons() {
	return src('nodes/**/*.{png,svg}', { encoding: false }).pipe(dest('dist/nodes'));
}

function copySharedIcons() {
	return src('icons/*.{png,svg}', { encoding: false }).pipe(dest('dist/icons'));
}

exports['build:icons'] = series(copyNodeIcons, copySharedIcons);
