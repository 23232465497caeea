// n8n loads this package through the "n8n" section of package.json; nothing is exported here.
module.exports = {};
