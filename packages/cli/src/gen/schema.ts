/**
 * OpenAPI v3 schemas (a CRD version's `openAPIV3Schema`) as TypeScript: each object schema with
 * properties becomes a named interface, everything else a type expression. Pure: a schema in,
 * source text out.
 */

/** The parts of a `JSONSchemaProps` that decide a TypeScript type; the rest is ignored. */
export interface JSONSchemaProps {
  type?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  items?: JSONSchemaProps;
  enum?: unknown[];
  nullable?: boolean;
  additionalProperties?: JSONSchemaProps | boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  [keyword: string]: unknown;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `fooBar`, `foo-bar`, `foo_bar` → `FooBar`: the part a nested type's name takes from a field. */
export function pascalCase(word: string): string {
  const parts = word.split(/[^A-Za-z0-9]+/).filter((p) => p !== '');
  return parts.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
}

/** A TypeScript string literal in single quotes (the house style). */
export function stringLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

/** A property key: bare when it is an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : stringLiteral(name);
}

/** A TSDoc comment at `indent`, or nothing when there is no description. */
export function tsdoc(description: string | undefined, indent: string): string {
  const text = description?.trim();
  if (!text) return '';
  const lines = text.replace(/\*\//g, '*\\/').split(/\r?\n/);
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} *${l === '' ? '' : ` ${l}`}`).join('\n')}\n${indent} */\n`;
}

const isSchema = (value: unknown): value is JSONSchemaProps =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function literal(value: unknown): string | undefined {
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean' || value === null) return String(value);
  return undefined; // an object or array in an enum: the schema's type says enough
}

const parenthesised = (type: string) => (/[|&]/.test(type) ? `(${type})` : type);

/**
 * Collects the declarations of one generated file. A name is taken once: a nested type whose
 * natural name is taken gets a number (`SpecItem2`), so generation never fails on a clash.
 */
export class Declarations {
  private readonly taken: Set<string>;
  private readonly texts: string[] = [];
  /** Interfaces by their schema's JSON: a schema written twice (a template's spec) is declared once. */
  private readonly bySchema = new Map<string, string>();

  /** `reserved`: names the file already uses (its imports, its kinds). */
  constructor(reserved: Iterable<string> = []) {
    this.taken = new Set(reserved);
  }

  /** The declarations so far, each parent before the types it names. */
  get all(): readonly string[] {
    return this.texts;
  }

  /** Takes `wanted`, or the first free `wanted2`, `wanted3`, ... */
  unique(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.taken.has(name); n++) name = `${wanted}${n}`;
    this.taken.add(name);
    return name;
  }

  /** Adds a declaration as written (a kind, a descriptor). */
  add(text: string): void {
    this.texts.push(text);
  }

  /** The type of a value `schema` describes; `hint` names the interfaces it needs. */
  typeOf(schema: unknown, hint: string): string {
    if (!isSchema(schema)) return 'unknown';
    const base = this.baseType(schema, hint);
    return schema.nullable === true ? `${base} | null` : base;
  }

  /**
   * Declares `export interface <name>` for an object schema: a member per property, optional
   * unless required, documented by its description. `heritage` is an `extends` clause.
   */
  declareInterface(name: string, schema: JSONSchemaProps, heritage = '', members: string[] = []): void {
    const slot = this.texts.length;
    this.texts.push(''); // the parent is written before the children it names
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const lines = [...members];
    for (const [field, sub] of Object.entries(schema.properties ?? {})) {
      const type = this.typeOf(sub, `${name}${pascalCase(field)}`);
      const optional = required.has(field) ? '' : '?';
      lines.push(
        `${tsdoc(isSchema(sub) ? sub.description : undefined, '  ')}  ${propertyKey(field)}${optional}: ${type};`,
      );
    }
    if (schema['x-kubernetes-preserve-unknown-fields'] === true) lines.push('  [field: string]: unknown;');
    const body = lines.length === 0 ? '{}' : `{\n${lines.join('\n')}\n}`;
    const extendsClause = heritage === '' ? '' : ` extends ${heritage}`;
    this.texts[slot] = `${tsdoc(schema.description, '')}export interface ${name}${extendsClause} ${body}`;
  }

  private baseType(schema: JSONSchemaProps, hint: string): string {
    if (Array.isArray(schema.enum) && schema.enum.length > 0) {
      const literals = schema.enum.map(literal);
      if (literals.every((l) => l !== undefined)) return [...new Set(literals)].join(' | ');
    }
    if (schema['x-kubernetes-int-or-string'] === true) return 'number | string';
    switch (schema.type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'array':
        return `${parenthesised(this.typeOf(schema.items, `${hint}Item`))}[]`;
      case 'object':
        return this.objectType(schema, hint);
      default:
        return schema.properties ? this.objectType(schema, hint) : 'unknown';
    }
  }

  private objectType(schema: JSONSchemaProps, hint: string): string {
    if (schema.properties && Object.keys(schema.properties).length > 0) {
      const key = JSON.stringify(schema);
      const known = this.bySchema.get(key);
      if (known) return known;
      const name = this.unique(hint);
      this.bySchema.set(key, name);
      this.declareInterface(name, schema);
      return name;
    }
    const extra = schema.additionalProperties;
    if (isSchema(extra)) return `Record<string, ${this.typeOf(extra, `${hint}Value`)}>`;
    return 'Record<string, unknown>';
  }
}
