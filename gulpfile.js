const { series, src, dest } = require('gulp');

// `npm run build` (n8n-node build) copies the icons itself. `tsc --watch` (npm run build:watch) does
// not: run `npm run build:icons` once next to it so that n8n finds the icons in dist/.
function copyNodeIcons() {
	return src('nodes/**/*.{png,svg}', { encoding: false }).pipe(dest('dist/nodes'));
}

function copySharedIcons() {
	return src('icons/*.{png,svg}', { encoding: false }).pipe(dest('dist/icons'));
}

exports['build:icons'] = series(copyNodeIcons, copySharedIcons);
