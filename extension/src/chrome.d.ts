/**
 * The few chrome.* extension APIs the Sprint extension uses (MV3 service
 * worker and content script), declared here instead of depending on
 * @types/chrome. Only what the code calls; see
 * https://developer.chrome.com/docs/extensions/reference/api/runtime
 */
declare namespace chrome.runtime {
  interface LastError {
    message?: string;
  }
  interface MessageSender {
    id?: string;
    url?: string;
    origin?: string;
    tab?: { id?: number; url?: string };
    frameId?: number;
    documentId?: string;
  }
  interface Event<T extends (...args: never[]) => void> {
    addListener(fn: T): void;
    removeListener(fn: T): void;
  }
  interface Port {
    name: string;
    sender?: MessageSender;
    postMessage(message: unknown): void;
    disconnect(): void;
    onMessage: Event<(message: unknown, port: Port) => void>;
    onDisconnect: Event<(port: Port) => void>;
  }
  interface Manifest {
    version: string;
  }
  const id: string | undefined;
  const lastError: LastError | undefined;
  const onConnect: Event<(port: Port) => void>;
  function connect(connectInfo?: { name?: string }): Port;
  function connectNative(application: string): Port;
  function getManifest(): Manifest;
}
