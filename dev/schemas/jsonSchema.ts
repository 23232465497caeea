/**
 * The JSON Schema of what an operation outputs, derived from output items the node really gave.
 * The subset n8n's own `__schema__` files use (n8n-nodes-base): `type`, `properties`, `items`.
 *
 * - A value's type is one of JSON's: `object`, `array`, `string`, `number`, `boolean`, `null`.
 *   Numbers are `number`, never `integer`: that the sandbox gave 1000 says nothing about whether
 *   the backend can give 1000.5.
 * - Where a field was seen with several types, `type` lists them, the null last (`["string", "null"]`):
 *   n8n's editor shows a field as the first type listed (useDataSchema's getSchemaForJsonSchema).
 * - An object's properties are the union of the keys seen, in the order first seen (the order of
 *   the output); an array's `items` is the union of all its elements, absent when every array seen
 *   was empty.
 */

export type JsonType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export interface JsonSchema {
	type: JsonType | JsonType[];
	properties?: Record<string, JsonSchema>;
	items?: JsonSchema;
}

/** What has been seen at one place of the output so far. */
export interface Shape {
	types: Set<JsonType>;
	properties: Map<string, Shape>;
	/** The elements of every array seen here; undefined while none held one. */
	items?: Shape;
}

const TYPE_ORDER: JsonType[] = ['object', 'array', 'string', 'number', 'boolean', 'null'];

export function emptyShape(): Shape {
	return { types: new Set(), properties: new Map() };
}

export function jsonTypeOf(value: unknown): JsonType {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	switch (typeof value) {
		case 'string':
			return 'string';
		case 'number':
			return 'number';
		case 'boolean':
			return 'boolean';
		case 'object':
			return 'object';
		default:
			throw new Error(`an output value of type ${typeof value} is not JSON`);
	}
}

/** Adds one value to what was seen at its place (the shape is changed and returned). */
export function observe(shape: Shape, value: unknown): Shape {
	const type = jsonTypeOf(value);
	shape.types.add(type);
	if (type === 'array') {
		for (const element of value as unknown[]) observe((shape.items ??= emptyShape()), element);
	}
	if (type === 'object') {
		for (const [key, property] of Object.entries(value as Record<string, unknown>)) {
			let seen = shape.properties.get(key);
			if (!seen) {
				seen = emptyShape();
				shape.properties.set(key, seen);
			}
			observe(seen, property);
		}
	}
	return shape;
}

/** The schema of everything seen at one place. */
export function schemaOf(shape: Shape): JsonSchema {
	if (shape.types.size === 0) throw new Error('nothing was seen here');
	const types = TYPE_ORDER.filter((type) => shape.types.has(type));
	const schema: JsonSchema = { type: types.length === 1 ? types[0] : types };
	if (shape.types.has('object')) {
		schema.properties = Object.fromEntries(
			[...shape.properties].map(([key, property]) => [key, schemaOf(property)]),
		);
	}
	if (shape.types.has('array') && shape.items) schema.items = schemaOf(shape.items);
	return schema;
}

/** The schema of a list of output items (each item's JSON). */
export function schemaOfItems(items: unknown[]): JsonSchema {
	const shape = emptyShape();
	for (const item of items) observe(shape, item);
	return schemaOf(shape);
}

/** Every place in a schema, as `path: type`, e.g. `installment.due_date: string,null`. */
export function describeSchema(schema: JsonSchema, path = ''): string[] {
	const here = `${path || '(item)'}: ${[schema.type].flat().join(',')}`;
	const properties = Object.entries(schema.properties ?? {}).flatMap(([key, property]) =>
		describeSchema(property, path ? `${path}.${key}` : key),
	);
	const items = schema.items ? describeSchema(schema.items, `${path}[]`) : [];
	return [here, ...properties, ...items];
}
