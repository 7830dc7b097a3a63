/**
 * The emulator's control route, under `/api/v1` like every route it answers (the service has no
 * such path: a client pointed at production gets a 404 and says so). Alone in this module so that
 * the CLI's `trigger` can name it without loading msw.
 */
export const CONTROL_EVENTS_PATH = '/_emulator/events';
