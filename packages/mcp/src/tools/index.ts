// Every tool of the MCP server, in the order tools/list shows them (reads first).
import type { AnyTool } from '../tool.js';
import { dealCreate, dealRoomFind, dealTransactionsList } from './deals.js';
import { roomDocumentsUpload } from './documents.js';
import { roomAsk, roomCreate } from './rooms.js';
import { transactionCreate, transactionLinkRoom } from './transactions.js';
import { webhookCreate, webhookDelete, webhookList, webhookPing, webhookRotateSecret } from './webhooks.js';

/** The tools, at most 15 (a host's context window is the budget). */
export const TOOLS: readonly AnyTool[] = [
  dealRoomFind,
  dealTransactionsList,
  roomAsk,
  webhookList,
  dealCreate,
  roomCreate,
  transactionCreate,
  transactionLinkRoom,
  roomDocumentsUpload,
  webhookCreate,
  webhookPing,
  webhookDelete,
  webhookRotateSecret,
];
