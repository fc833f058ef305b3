import { z } from 'zod';

export type FieldKind = 'string' | 'number' | 'boolean' | 'enum' | 'array';

/** What the CLI needs to know about one input field of an operation to offer it as a flag or an argument. */
export interface FieldSpec {
  field: string;
  kind: FieldKind;
  required: boolean;
  description: string;
  /** Allowed values of an enum, or of the items of an array of enums. */
  choices?: readonly string[];
}

/** The kebab-case flag of an input field: `due_date` -> `--due-date`. */
export function flagOf(field: string): string {
  return `--${field.replaceAll('_', '-')}`;
}

/**
 * Reads an operation's flat zod input object into field specs: kind (optional wrappers removed), whether it is
 * required, its description (the outer one, else the inner one, else one made from the choices) and its choices.
 */
export function fieldSpecs(input: z.ZodObject): FieldSpec[] {
  return Object.entries(input.shape).map(([field, schema]) => {
    const outer = schema as z.ZodType;
    const inner = outer instanceof z.ZodOptional ? (outer.unwrap() as z.ZodType) : outer;
    const kind = kindOf(inner);
    const choices = choicesOf(inner);
    const description =
      outer.description ?? inner.description ?? (choices ? `one of ${choices.join(', ')}` : field.replaceAll('_', ' '));
    return { field, kind, required: !(outer instanceof z.ZodOptional), description, ...(choices ? { choices } : {}) };
  });
}

function kindOf(schema: z.ZodType): FieldKind {
  if (schema instanceof z.ZodNumber) return 'number';
  if (schema instanceof z.ZodBoolean) return 'boolean';
  if (schema instanceof z.ZodEnum) return 'enum';
  if (schema instanceof z.ZodArray) return 'array';
  return 'string';
}

function choicesOf(schema: z.ZodType): readonly string[] | undefined {
  const values = schema instanceof z.ZodArray ? schema.element : schema;
  return values instanceof z.ZodEnum ? (values.options as string[]) : undefined;
}
