/**
 * n8n's logger prints every failed item of a run (the tests make many on purpose) to the console;
 * the tests read errors from the run itself, so the logger stays silent.
 */
process.env.N8N_LOG_LEVEL = 'silent';
