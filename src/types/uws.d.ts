// The subset of uWebSockets.js used here (the npm republish ships no type definitions).
declare module 'uWebSockets.js' {
  export interface HttpResponse {
    writeStatus(status: string): HttpResponse;
    writeHeader(key: string, value: string): HttpResponse;
    end(body?: string | Uint8Array, closeConnection?: boolean): HttpResponse;
    onAborted(handler: () => void): HttpResponse;
    onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): void;
    cork(cb: () => void): HttpResponse;
    close(): HttpResponse;
    pause(): void;
    resume(): void;
    getRemoteAddressAsText(): ArrayBuffer;
    upgrade<T>(userData: T, secWebSocketKey: string, secWebSocketProtocol: string, secWebSocketExtensions: string, context: us_socket_context_t): void;
  }
  export type us_socket_context_t = object;
  export interface WebSocket<T> {
    send(message: string | Uint8Array, isBinary?: boolean, compress?: boolean): number;
    getBufferedAmount(): number;
    end(code?: number, shortMessage?: string): void;
    cork(cb: () => void): WebSocket<T>;
    getUserData(): T;
  }
  export interface WebSocketBehavior<T> {
    maxPayloadLength?: number;
    idleTimeout?: number;
    maxBackpressure?: number;
    closeOnBackpressureLimit?: boolean;
    sendPingsAutomatically?: boolean;
    upgrade?: (res: HttpResponse, req: HttpRequest, context: us_socket_context_t) => void;
    open?: (ws: WebSocket<T>) => void;
    message?: (ws: WebSocket<T>, message: ArrayBuffer, isBinary: boolean) => void;
    drain?: (ws: WebSocket<T>) => void;
    close?: (ws: WebSocket<T>, code: number, message: ArrayBuffer) => void;
  }
  export interface HttpRequest {
    getHeader(lowerCaseKey: string): string;
    getUrl(): string;
    getMethod(): string;
    getQuery(): string | undefined;
    forEach(cb: (key: string, value: string) => void): void;
  }
  export type us_listen_socket = object;
  export interface TemplatedApp {
    any(pattern: string, handler: (res: HttpResponse, req: HttpRequest) => void): TemplatedApp;
    ws<T>(pattern: string, behavior: WebSocketBehavior<T>): TemplatedApp;
    listen(host: string, port: number, cb: (listenSocket: us_listen_socket | false) => void): TemplatedApp;
    close(): TemplatedApp;
  }
  export function App(options?: Record<string, unknown>): TemplatedApp;
  export function us_listen_socket_close(listenSocket: us_listen_socket): void;
  export function us_socket_local_port(listenSocket: us_listen_socket): number;
}
