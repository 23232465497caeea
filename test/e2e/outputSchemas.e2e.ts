/**
 * The output schemas on a real n8n (2.x, and 1.x under jest.e2e-n8n1.config.js) with the package
 * installed from its tarball: n8n serves each one at the URL its editor asks for to show a node's
 * output fields before the node has run (the schema preview), without a login, as the editor asks
 * (`withCredentials: false`). The files are dev/schemas' (npm run schemas).
 */
import { createN8nHome, type N8nHome, type N8nServer } from '../../dev/n8n/n8n-env';
import { wantedVersion } from '../../dev/n8n/ensure-n8n';
import type { JsonSchema } from '../../dev/schemas/jsonSchema';
import { shippedSchemas } from '../../dev/schemas/outputSchemas';

const NODE_TYPE = 'n8n-nodes-lendasat.lendasatBorrower';

let home: N8nHome;
let server: N8nServer;

beforeAll(async () => {
	home = createN8nHome();
	server = await home.start();
	// n8n 1.x answers readiness before its routes are up; the owner's sign-up waits for them.
	await server.setupOwner();
}, 300_000);

afterAll(async () => {
	await server?.stop();
	home?.remove();
});

/** GET an output schema as the editor does: no cookie. */
const schemaAt = (path: string) => fetch(`${server.url}/schemas/${path}`);

describe(`output schemas in n8n ${wantedVersion()}`, () => {
	test('the URL the editor asked for answers 200 with the schema of Contract → Get Events', async () => {
		const response = await schemaAt(`${NODE_TYPE}/1.1.0/contract/getEvents.json`);
		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toMatch(/^application\/json/);
		const schema = (await response.json()) as JsonSchema;
		expect(schema).toEqual(shippedSchemas().get('v1.1.0/contract/getEvents.json'));
		expect(schema.properties).toMatchObject({
			event: { type: 'string' },
			event_key: { type: 'string' },
			contract_id: { type: 'string' },
		});
	});

	test('every operation of both node versions is served as shipped', async () => {
		const shipped = shippedSchemas();
		expect(shipped.size).toBeGreaterThan(100);
		const served = new Map<string, unknown>();
		for (const file of shipped.keys()) {
			// v1.0.0/contract/get.json → …/1.0.0/contract/get.json
			const response = await schemaAt(`${NODE_TYPE}/${file.slice(1)}`);
			served.set(file, response.status === 200 ? await response.json() : response.status);
		}
		expect(served).toEqual(shipped);
	});

	test('an operation the node does not have, and the trigger, have none', async () => {
		expect((await schemaAt(`${NODE_TYPE}/1.1.0/contract/nothing.json`)).status).toBe(404);
		// The trigger's events have no resource and operation; n8n 2.x's editor asks for none.
		expect((await schemaAt('n8n-nodes-lendasat.lendasatBorrowerTrigger/1.0.0.json')).status).toBe(
			404,
		);
	});
});
