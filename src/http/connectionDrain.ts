import type { Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** What one drain did: the fields of its summary log line. */
export interface DrainSummary {
  /** Requests received and not yet answered when the drain began. */
  requestsInFlight: number;
  /**
   * Responses written in full during the drain: the ones in flight, and requests that reached a connection
   * still open meanwhile (a response already under way when the drain began cannot tell its client to stop).
   */
  requestsAnswered: number;
  /** Connections open when the drain began or accepted in its first turn; all are closed when it ends. */
  connectionsClosed: number;
  /** Of those, the ones closed because no request was on them (idle keep-alive connections). */
  idleConnectionsClosed: number;
  /** Of those, the ones still open at the deadline, closed with whatever they were doing. */
  connectionsCut: number;
  durationMs: number;
}

export interface ConnectionDrain {
  /**
   * Stops accepting connections, answers every request already received (the last answer on each connection
   * carries `Connection: close`), closes each connection as soon as nothing is in flight on it, and cuts
   * whatever is still open after `timeoutMs`. Resolves once every connection is closed.
   */
  drain(timeoutMs: number): Promise<DrainSummary>;
}

interface ConnectionState {
  /** Responses to the requests received on the connection, oldest first, until each closes. */
  unanswered: ServerResponse[];
  /** `socket.bytesRead` when its last response closed: bytes read since are the head of a next request. */
  bytesReadWhenIdle: number;
  /** Called when one of its responses closes (the tracker's bookkeeping for that connection). */
  onAnswered: (socket: Socket, state: ConnectionState, response: ServerResponse) => void;
}

const connectionStates = new WeakMap<Socket, ConnectionState>();

/**
 * One listener shared by every response, not a closure per request: this runs on every request, and tsx
 * (keepNames) wraps each function made at run time in a naming call.
 */
function onResponseClose(this: ServerResponse): void {
  const socket = this.req.socket;
  const state = connectionStates.get(socket);
  if (state !== undefined) state.onAnswered(socket, state, this);
}

/**
 * Follows the server's connections and requests from now on, so that it can be stopped without losing an
 * answer. Node's own `server.close()` is not enough: it destroys every connection that is not parsing a
 * request, even one whose last response is still being written (a truncated body) or whose next request has
 * arrived but is not read yet (a reset), and it leaves busy keep-alive connections open for more requests.
 */
export function trackConnections(server: Server): ConnectionDrain {
  const connections = new Map<Socket, ConnectionState>();
  /** Responses this drain gave `Connection: close`. */
  const closing = new WeakSet<ServerResponse>();
  let draining: { answered: number; idleClosed: number; accepted: number } | null = null;

  const stateOf = (socket: Socket): ConnectionState => {
    let state = connections.get(socket);
    if (!state) {
      state = { unanswered: [], bytesReadWhenIdle: socket.bytesRead, onAnswered };
      connections.set(socket, state);
      connectionStates.set(socket, state);
      socket.once('close', () => connections.delete(socket));
    }
    return state;
  };

  // Only the last response on a connection may close it: Node drops the answers queued behind one that
  // closes, so a request pipelined behind it would go unanswered.
  const closeAfterLast = (state: ConnectionState) => {
    const last = state.unanswered.at(-1);
    if (last === undefined || last.headersSent) return;
    last.setHeader('Connection', 'close');
    closing.add(last);
  };

  const closeIfIdle = (socket: Socket, state: ConnectionState) => {
    if (draining === null || state.unanswered.length > 0 || socket.bytesRead !== state.bytesReadWhenIdle) return;
    // Ending already: its last answer carried `Connection: close` and Node closes it once that is written.
    if (socket.destroyed || socket.writableEnded) return;
    draining.idleClosed += 1;
    socket.destroy();
  };

  const onAnswered = (socket: Socket, state: ConnectionState, response: ServerResponse) => {
    state.unanswered.splice(state.unanswered.indexOf(response), 1);
    if (draining !== null && response.writableFinished) draining.answered += 1;
    if (state.unanswered.length === 0) {
      state.bytesReadWhenIdle = socket.bytesRead;
      closeIfIdle(socket, state);
    }
  };

  server.on('connection', (socket: Socket) => {
    stateOf(socket);
    if (draining !== null) draining.accepted += 1;
  });
  // Ahead of the app's listener, so a request that arrives during the drain is marked before any answer.
  server.prependListener('request', (request, response) => {
    const socket = request.socket;
    const state = stateOf(socket);
    if (draining !== null) {
      const previous = state.unanswered.at(-1);
      if (previous !== undefined && closing.has(previous) && !previous.headersSent) previous.removeHeader('Connection');
    }
    state.unanswered.push(response);
    if (draining !== null) closeAfterLast(state);
    response.on('close', onResponseClose);
  });

  return {
    async drain(timeoutMs) {
      const startedAt = performance.now();
      const progress = { answered: 0, idleClosed: 0, accepted: 0 };
      draining = progress;
      let requestsInFlight = 0;
      for (const state of connections.values()) {
        requestsInFlight += state.unanswered.length;
        closeAfterLast(state);
      }
      const connectionsAtStart = connections.size;
      let connectionsCut = 0;
      const deadline = setTimeout(() => {
        connectionsCut = connections.size;
        for (const socket of connections.keys()) socket.destroy();
      }, timeoutMs);
      try {
        // The signal may be read in the same turn of the event loop as requests that reached the process
        // before it: the rest of that turn reads them, and the next turn reads the first request of a
        // connection that turn accepted, so none of them is taken for idle. A connection still waiting in
        // the listen queue when the listener closes is refused by the system (Node accepts one per turn).
        await nextTurn();
        // net.Server's close: it only stops accepting, and calls back once the last connection has closed.
        // (http.Server's would first destroy connections as described above.)
        const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
        await nextTurn();
        for (const [socket, state] of connections) closeIfIdle(socket, state);
        await closed;
      } finally {
        clearTimeout(deadline);
      }
      return {
        requestsInFlight,
        requestsAnswered: progress.answered,
        connectionsClosed: connectionsAtStart + progress.accepted,
        idleConnectionsClosed: progress.idleClosed,
        connectionsCut,
        durationMs: Math.round(performance.now() - startedAt),
      };
    },
  };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
