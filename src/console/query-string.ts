/** A query string from the given parameters, leaving out empty ones. */
export function queryString(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== "") search.set(k, String(v));
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}
