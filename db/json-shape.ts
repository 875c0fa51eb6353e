import { stringifyJson } from '../lib/json';

/**
 * One definition of a JSON response shape, from which both its JS view (an object stringifyJson writes) and its SQL
 * renderer (PostgreSQL writing the same JSON text, for the reads where parsing rows and writing them out again was
 * most of the API's CPU) are derived. A shape is a table of members in wire order, each with its JS value and the SQL
 * of its JSON text; adding a member is one line, and both forms follow.
 */
export interface JsonMember<T> {
  /** The member's value in the JS view. */
  js: (source: T) => unknown;
  /** SQL of the member's JSON text, exactly as stringifyJson writes the JS value; never NULL. */
  sql: string;
  /**
   * An optional member: left out of the JS view when its value is undefined, and of the SQL text when this SQL
   * condition holds (the two must agree). The first member of a shape cannot be optional.
   */
  omitWhen?: string;
}

export type JsonMembers<T> = Record<string, JsonMember<T>>;
/** The JS view of a shape's members: a member's type is its `js` value's. */
export type JsonView<M> = { [K in keyof M]: M[K] extends JsonMember<never> ? ReturnType<M[K]['js']> : never };

export interface JsonShape<T, M extends JsonMembers<T>> {
  members: M;
  /** The JS view: members in the shape's order, optional ones left out when undefined. */
  view(source: T): JsonView<M>;
  /**
   * SQL of the object's JSON text. `stored`: SQL of the text of some consecutive required members, written by the
   * writers beside the row and NULL when absent, in which case those members are written out here.
   */
  sql(options?: { stored?: { members: Array<keyof M & string>; sql: string } }): string;
}

/** A SQL string literal. */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
/** A member's name and colon, as JSON text. */
const key = (name: string) => `${stringifyJson(name)}:`;

type Part = { text: string } | { sql: string };
type SqlMember = Pick<JsonMember<never>, 'sql' | 'omitWhen'>;

function partsOf(members: Array<[string, SqlMember]>, leadingComma: boolean): Part[] {
  return members.flatMap(([name, member], i): Part[] => {
    const prefix = `${i > 0 || leadingComma ? ',' : ''}${key(name)}`;
    if (member.omitWhen === undefined) return [{ text: prefix }, { sql: member.sql }];
    return [{ sql: `CASE WHEN ${member.omitWhen} THEN '' ELSE ${literal(prefix)} || ${member.sql} END` }];
  });
}

/** The parts concatenated, consecutive literal ones merged: the statement concatenates no more pieces than it needs. */
function render(parts: Part[]): string {
  const merged: string[] = [];
  let pending = '';
  for (const part of parts) {
    if ('text' in part) pending += part.text;
    else {
      if (pending) merged.push(literal(pending));
      pending = '';
      merged.push(part.sql);
    }
  }
  if (pending) merged.push(literal(pending));
  return merged.join(' || ');
}

/** SQL of the JSON text of members written one after the other, without braces: `"a":…,"b":…`. */
export const membersSql = (members: Array<[string, SqlMember]>): string => render(partsOf(members, false));

/** `jsonShape<Row>()({ name: { js, sql }, … })`: the shape of a JSON object read from `Row`. */
export const jsonShape =
  <T>() =>
  <M extends JsonMembers<T>>(members: M): JsonShape<T, M> => {
    const entries = Object.entries(members) as Array<[string, JsonMember<T>]>;
    if (entries.length === 0 || entries[0][1].omitWhen !== undefined) throw new Error('jsonShape: the first member cannot be optional');
    return {
      members,
      view(source) {
        const out: Record<string, unknown> = {};
        for (const [name, member] of entries) {
          const value = member.js(source);
          if (value === undefined && member.omitWhen !== undefined) continue;
          out[name] = value;
        }
        return out as JsonView<M>;
      },
      sql(options = {}) {
        const stored = options.stored;
        if (!stored) return render([{ text: '{' }, ...partsOf(entries, false), { text: '}' }]);
        const first = entries.findIndex(([name]) => name === stored.members[0]);
        const run = entries.slice(first, first + stored.members.length);
        if (first < 0 || run.some(([name, member], i) => name !== stored.members[i] || member.omitWhen !== undefined)) {
          throw new Error(`jsonShape: stored members ${stored.members.join(', ')} are not consecutive required members`);
        }
        const before = entries.slice(0, first);
        return render([
          { text: '{' },
          ...partsOf(before, false),
          { text: before.length ? ',' : '' },
          { sql: `coalesce(${stored.sql}, ${membersSql(run)})` },
          ...partsOf(entries.slice(first + run.length), true),
          { text: '}' },
        ]);
      },
    };
  };
