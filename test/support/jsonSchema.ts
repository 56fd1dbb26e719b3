/**
 * A JSON Schema as tools/list advertises it, read loosely: any keyword may be there, and a nested
 * schema reads the same way (tests walk properties.<field>.<keyword>).
 */
export interface SchemaNode {
  readonly [keyword: string]: SchemaNode | undefined
}

/** The advertised input schema's properties. */
export const propertiesOf = (schema: unknown): SchemaNode => (schema as SchemaNode).properties ?? {}
