// A deliberately tiny extension → MIME map: the types data rooms hold most. Anything else is
// `application/octet-stream` unless the caller passes `contentType` (a full database is not worth its size).
const TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  zip: 'application/zip',
};

/** The MIME type for a file name's extension, or undefined when the map does not know it. */
export function mimeFromFilename(filename: string): string | undefined {
  const dot = filename.lastIndexOf('.');
  return dot < 0 ? undefined : TYPES[filename.slice(dot + 1).toLowerCase()];
}

/** The last segment of a POSIX or Windows path, without node:path (this module runs on the edge too). */
export function basename(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}
