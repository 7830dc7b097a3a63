/**
 * Builds a request path, percent-encoding every interpolated parameter, so an id such as
 * `'1/../../admin'` can never change which endpoint is called.
 *
 * @example path`/rooms/${roomId}/documents` // '/rooms/42/documents'
 */
export function path(strings: TemplateStringsArray, ...params: Array<string | number>): string {
  let result = strings[0] ?? '';
  for (let index = 0; index < params.length; index++) {
    result += encodeURIComponent(String(params[index])) + (strings[index + 1] ?? '');
  }
  return result;
}
