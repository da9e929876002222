// How request bodies are read: JSON in UTF-8 only, numbers kept as written, each refusal worded.
import { jsonSyntaxError, parseJsonText, pointerParam } from '@setup-pack/core';
import type { FastifyInstance } from 'fastify';
import { ApiError, badRequest } from '../shared/errors.js';

/**
 * JSON keys are data: a pack may name a key "__proto__" or nest {"constructor": {"prototype": …}}
 * in a block config or a resource's data, and what validates must install. JSON.parse makes them
 * own properties; this server never merges a body into another object through the prototype (no
 * Object.assign or deep merge of request bodies), so keeping them is safe. Stated once for Fastify's
 * options and the JSON body parser that also takes an empty body.
 */
export const JSON_KEYS = { onProtoPoisoning: 'ignore', onConstructorPoisoning: 'ignore' } as const;

/**
 * A JSON number that does not read as written follows a colon, a bracket or a comma, and is one
 * too large for a float, with an exponent of three digits or more (1e400; 309 digits before its
 * point are 16 and more), or an integer of 2^53 or more in size that a float does not hold
 * (9007199254740993): at least 16 significant digits, so 16 digits before its point, or 16 digits
 * and a point before a positive exponent (9.007199254740993e15; with fewer, a float holds every
 * decimal). A body without one holds none and is not read a second time (nor is a media upload's
 * base64, however its letters fall); one that has one is read again by core, which says whether
 * it is such a number (parseJsonText: json/number-range, json/number-precision).
 */
const MAY_NOT_READ_AS_WRITTEN = /[:[,]\s*-?(?:\d+(?:\.\d+)?[eE][+-]?\d{3}|\d{16}|[\d.]{17,}[eE]\+?\d)/;

/** The findings of a number a body does not hold as written, which a body may not carry: it would be stored as another. */
const NUMBER_NOT_AS_WRITTEN = new Set(['json/number-range', 'json/number-precision']);

/** The charset parameter of a Content-Type, as sent (without quotes), if it has one. */
function charsetOf(contentType: string | undefined): string | undefined {
  const m = contentType ? /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType) : null;
  return m ? (m[1] ?? m[2]) : undefined;
}

/** The labels clients send for UTF-8 (any case): answered without building a decoder. */
const USUAL_UTF8 = /^utf-?8$/i;

/**
 * Whether a charset names UTF-8 by one of its labels (WHATWG Encoding: utf-8, utf8,
 * unicode-1-1-utf-8…). The usual labels are known at once; only another one (a rare label, or a
 * charset that is refused) builds a TextDecoder to ask, which trims and folds it as the standard says.
 */
function isUtf8(label: string): boolean {
  if (USUAL_UTF8.test(label)) return true;
  try {
    return new TextDecoder(label).encoding === 'utf-8';
  } catch {
    return false;
  }
}

/** The 415 of a body that is not JSON, naming the media type it was sent as. */
export function notJson(contentType: string | undefined): ApiError {
  const sent =
    contentType === undefined
      ? 'has no Content-Type'
      : `is ${contentType.split(';')[0].trim().toLowerCase().slice(0, 100) || 'an empty Content-Type'}`;
  return new ApiError(415, 'invalid_request_error', `Request bodies must be sent with Content-Type: application/json; this one ${sent}`);
}

/** How request bodies are read: JSON in UTF-8 only, said precisely when it is not. */
export function acceptJsonBodies(app: FastifyInstance): void {
  // Only JSON bodies are accepted: any other content type is a 415. A GET's or HEAD's body too:
  // Fastify reads none for them by default, so a form body on a GET was answered as if there were
  // none; read, it is a 415 like any other, and a JSON one a 400 (preValidation, below).
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  app.addHttpMethod('HEAD', { hasBody: true, overrideExisting: true });
  app.removeContentTypeParser(['text/plain']);
  // Every other type, or none, with a body: a 415 naming it. With no body it is no body, whatever
  // the header says (a client may send one on every call), as with the JSON type.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(notJson(req.headers['content-type']), undefined);
  });
  // Many clients send Content-Type: application/json on every call: with no body it is no body, so
  // an endpoint without a payload answers as without the header, and one that needs a body says so.
  const parseJson = app.getDefaultJsonParser(JSON_KEYS.onProtoPoisoning, JSON_KEYS.onConstructorPoisoning);
  app.removeContentTypeParser('application/json');
  // A malformed body says what breaks where, as `setup-pack validate` says it of a pack file
  // (core's jsonSyntaxError): Fastify's own message named neither. White space alone is no body.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    // A compressed body is read as sent, never inflated: say so, rather than that its bytes are not JSON.
    const coding = req.headers['content-encoding'];
    if (coding && coding.trim().toLowerCase() !== 'identity') {
      return done(
        new ApiError(
          415,
          'invalid_request_error',
          `Request bodies are read as sent: Content-Encoding ${coding} is not supported; send the JSON uncompressed`,
        ),
        undefined,
      );
    }
    if (body === '') return done(null, undefined);
    // JSON is exchanged in UTF-8 (RFC 8259): a body said to be in another charset would be misread
    // letter by letter (José stored as Jos\uFFFD), so it is refused, naming the charset.
    const charset = charsetOf(req.headers['content-type']);
    if (charset !== undefined && !isUtf8(charset)) {
      return done(
        new ApiError(
          415,
          'invalid_request_error',
          `Request bodies are JSON in UTF-8: charset=${charset.slice(0, 100)} is not taken; send the body in UTF-8 (charset=utf-8, or no charset)`,
        ),
        undefined,
      );
    }
    void parseJson(req, body as string, (err, value) => {
      if (!err) {
        // A number that would be stored as another is refused with core's finding, as a pack's is
        // reported: one JSON cannot hold (1e400 parses as Infinity and would be stored as null), an
        // integer beyond 2^53 (9007199254740993 reads as 9007199254740992). Only a text that may hold one is read again.
        if (MAY_NOT_READ_AS_WRITTEN.test(body as string)) {
          const f = parseJsonText(body as string).diagnostics.find((d) => NUMBER_NOT_AS_WRITTEN.has(d.code));
          if (f) return done(badRequest(f.hint ? `${f.message} ${f.hint}` : f.message, pointerParam(f.pointer) || undefined), undefined);
        }
        return done(null, value);
      }
      const broken = jsonSyntaxError(body as string, err.message);
      if (broken.empty) return done(null, undefined);
      done(badRequest(`The request body is not valid JSON: ${broken.what} at line ${broken.line}, column ${broken.column}`), undefined);
    });
  });
}
