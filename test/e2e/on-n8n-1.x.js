// jest.e2e-n8n1.config.js: every n8n process the tests start is the n8n 1.x installation
// (dev/n8n/ensure-n8n.ts selectedN8n).
process.env.LENDASAT_N8N = '1.x';
