/**
 * A numeric array as PostgreSQL's array text (`{1,2,3}`), to be cast in SQL
 * (`::bigint[]`): pg serializes an array parameter element by element in
 * JavaScript, escaping each as text, far slower than a join. Elements are
 * numbers or pg's own text of a bigint it returned; anything else (`NaN`,
 * `1e+21`) the server refuses with an error rather than reading a wrong value.
 */
export function pgArray(values: ArrayLike<number | string>): string {
  return `{${Array.prototype.join.call(values, ',')}}`;
}
