import { describeSchema, schemaOfItems } from '../../dev/schemas/jsonSchema';

/*
 * How an output schema is derived from output items (dev/schemas/jsonSchema.ts): the union of what
 * was seen, in n8n's subset of JSON Schema (type, properties, items).
 */

describe('the schema of output items', () => {
	it('gives each field its JSON type, in the order the output has them', () => {
		expect(
			schemaOfItems([{ id: 'c1', amount: 1000, paid: false, due: null, tags: ['a'], next: {} }]),
		).toEqual({
			type: 'object',
			properties: {
				id: { type: 'string' },
				amount: { type: 'number' },
				paid: { type: 'boolean' },
				due: { type: 'null' },
				tags: { type: 'array', items: { type: 'string' } },
				next: { type: 'object', properties: {} },
			},
		});
	});

	it('calls every number a number: 1000 in the sandbox may be 1000.5 elsewhere', () => {
		expect(schemaOfItems([{ amount: 1000 }, { amount: 12.5 }]).properties?.amount).toEqual({
			type: 'number',
		});
	});

	it('lists every type a field was seen with, null last, the type n8n’s editor shows first', () => {
		const schema = schemaOfItems([{ address: null }, { address: 'tb1q…' }, { address: null }]);
		expect(schema.properties?.address).toEqual({ type: ['string', 'null'] });
	});

	it('joins the fields of all items, those of some items included', () => {
		const schema = schemaOfItems([
			{ event: 'marginCall', ltv: 0.8 },
			{ event: 'installmentDue', due_date: '2026-12-01' },
		]);
		expect(Object.keys(schema.properties ?? {})).toEqual(['event', 'ltv', 'due_date']);
	});

	it('joins the elements of every array into one item schema, across items and nesting', () => {
		const schema = schemaOfItems([
			{ installments: [{ id: 'i1', paid_date: null }] },
			{ installments: [] },
			{ installments: [{ id: 'i2', paid_date: '2026-11-01', payment_id: 'tx' }] },
		]);
		expect(schema.properties?.installments).toEqual({
			type: 'array',
			items: {
				type: 'object',
				properties: {
					id: { type: 'string' },
					paid_date: { type: ['string', 'null'] },
					payment_id: { type: 'string' },
				},
			},
		});
	});

	it('leaves out the item schema of an array only ever seen empty', () => {
		expect(schemaOfItems([{ transactions: [] }]).properties?.transactions).toEqual({
			type: 'array',
		});
	});

	it('keeps the properties of an object that is sometimes null', () => {
		expect(
			schemaOfItems([{ kyc: null }, { kyc: { link: 'https://kyc.example' } }]).properties?.kyc,
		).toEqual({ type: ['object', 'null'], properties: { link: { type: 'string' } } });
	});

	it('refuses what JSON cannot carry', () => {
		expect(() => schemaOfItems([{ when: undefined }])).toThrow(/of type undefined is not JSON/);
	});

	it('describes a schema place by place, for a readable difference', () => {
		expect(
			describeSchema(schemaOfItems([{ id: 'c1', next: { due: null }, list: [{ n: 1 }] }])),
		).toEqual([
			'(item): object',
			'id: string',
			'next: object',
			'next.due: null',
			'list: array',
			'list[]: object',
			'list[].n: number',
		]);
	});
});
