/**
 * The emulator's control routes, under `/api/v1` like every route it answers (the service has no
 * such path: a client pointed at production gets a 404 and says so). Alone in this module so that
 * the CLI's `trigger` can name them without loading msw.
 */
export const CONTROL_EVENTS_PATH = '/_emulator/events';
/** `emulator.actions` over HTTP: `POST` proposes; `POST …/<action_id>/approve | reject | expire` decides; `GET …/<action_id>` reads. */
export const CONTROL_ACTIONS_PATH = '/_emulator/actions';
/** The emulated credits over HTTP: `GET` reads the balance, `POST …/grant` tops it up (`credit.granted`). */
export const CONTROL_CREDITS_PATH = '/_emulator/credits';
