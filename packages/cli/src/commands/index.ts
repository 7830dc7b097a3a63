import type { CliCommand } from '../command.js';
import { actionsCommand } from './actions.js';
import { doctorCommand } from './doctor.js';
import { emulatorCommand } from './emulator.js';
import { inboxCommand } from './inbox.js';
import { listenCommand } from './listen.js';
import { mcpCommand } from './mcp.js';
import { triggerCommand } from './trigger.js';
import { upload } from './upload.js';

/** Every `svc-sdk` command, in the order the global help lists them. A new command is one module and one line here. */
export const COMMANDS: readonly CliCommand[] = [emulatorCommand, triggerCommand, listenCommand, upload, inboxCommand, actionsCommand, mcpCommand, doctorCommand];
