// The edge host: keel's agent as a stateless (Request) => Response handler. See edge.mjs.
import type {AgentOptions, Tool} from './keel.d.ts';

export interface EdgeOptions extends Omit<AgentOptions, 'store'> {
  /** The bearer key every request must carry; required unless allowUnauthenticated. */
  apiKey?: string;
  allowUnauthenticated?: boolean;
  /** Host names served (default: 127.0.0.1, localhost, [::1]); other Host headers get 421. */
  allowedHosts?: string[];
  /** Browser origins allowed (default none); a request with another Origin gets 403. */
  allowedOrigins?: string[];
  /** The model id /v1/models lists and completions report (default 'keel'). */
  modelName?: string;
  tools?: Tool[];
}

/** POST /v1/chat/completions, POST /v1/keel/step, GET /v1/models. */
export function createEdgeHandler(options: EdgeOptions): Promise<(request: Request) => Promise<Response>>;
/** Serves a handler with node:http; resolves to its URL and a close(). */
export function serveOnNode(handler: (request: Request) => Promise<Response>, options?: {port?: number; host?: string}): Promise<{url: string; close(): Promise<void>}>;
