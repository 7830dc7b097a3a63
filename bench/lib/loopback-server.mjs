// A loopback HTTP server, run in its own process so its work does not share the client's event loop.
// It answers every POST like the service's rooms.create: `{ success: true, data: { id, name } }`.
import { createServer } from 'node:http';

const body = JSON.stringify({ success: true, data: { id: 1, name: 'Bench room', room_type: 'company_investment' } });
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
