const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The object elements of an array with their indexes (anything else is the schema's business). */
export function objects(list: unknown): [Record<string, unknown>, number][] {
  if (!Array.isArray(list)) return [];
  const out: [Record<string, unknown>, number][] = [];
  list.forEach((v, i) => {
    if (isObj(v)) out.push([v, i]);
  });
  return out;
}

export { isObj };
