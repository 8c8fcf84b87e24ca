// The HTTP/1.1 pipelining layer of Sprint (paper §IV-B1), pure TypeScript (no
// DOM, no Node APIs): it turns segment requests into bytes for a connection
// and bytes from the connection into ordered responses. One job per module:
//   transport.ts         ByteTransport / TransportReceiver (the seam to the socket host)
//   request.ts           GET/HEAD serialisation
//   response-parser.ts   incremental response parser (head-parse.ts, framing.ts, headers.ts)
//   content-range.ts     does a response answer the request it is matched with?
//   connection-state.ts  Http1Connection: lifecycle and pipelining verdict
//   pipeline.ts          PipelinedClient: enqueue, in-order delivery, failures to retry
//   errors.ts            HttpParseError / HttpRequestError

export { HttpParseError, HttpRequestError, type HttpParseErrorCode } from './errors';
export { HeaderList } from './headers';
export type { BodyFraming, RequestMethod } from './framing';
export {
  ResponseParser,
  type ResponseHead,
  type ResponseParserEvents,
  type ResponseParserOptions,
  type ResponseParserState,
} from './response-parser';
export { serializeRequest, checkTarget, checkHost, rangeHeaderValue, MAX_REQUEST_BYTES, type ByteRange, type HttpRequest } from './request';
export { matchResponse, parseContentRange, type ContentRange, type ResponseMatch } from './content-range';
export {
  Http1Connection,
  type Http1ConnectionState,
  type PipelineUnsafeCode,
  type PipelineUnsafeReason,
  type DrainCause,
} from './connection-state';
export {
  PipelinedClient,
  type ConnectionClosed,
  type PipelinedClientEvents,
  type PipelinedClientOptions,
  type RequestEvents,
  type RequestFailure,
  type RequestFailureCode,
  type RequestHandle,
  type RequestState,
  type ResponseResult,
} from './pipeline';
export type { ByteTransport, TransportCloseReason, TransportReceiver } from './transport';
