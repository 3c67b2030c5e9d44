import { type IncomingMessage, type ServerResponse } from 'node:http';

export type ThreeDsResult = 'authenticated' | 'failed';

/**
 * The page a processor fake sends a cardholder to for 3-D Secure (its ACS), at `<prefix>/<id>`:
 * GET shows a form posting `result=authenticated` or `result=failed` back to the same URL; the POST
 * ends the authentication (`authenticate`, once: a repeat changes nothing) and sends the browser
 * where it answers (302), or a short page. Both hosted-processor fakes serve it, so one contract
 * scenario drives either: the real providers' pages are theirs, not part of their API.
 */
export class ThreeDsPages {
  constructor(
    private readonly prefix: string,
    private readonly title: string,
    private readonly waiting: ReadonlyMap<string, unknown>,
    private readonly authenticate: (
      id: string,
      result: ThreeDsResult,
    ) => Promise<string | null> | string | null,
  ) {}

  /** False: the request is not for a page of this prefix. */
  serve(request: IncomingMessage, response: ServerResponse, body: string): boolean {
    const path = (request.url ?? '').split('?')[0];
    if (!path.startsWith(`${this.prefix}/`)) return false;
    const id = decodeURIComponent(path.slice(this.prefix.length + 1));
    if (!this.waiting.has(id)) {
      response.writeHead(404).end();
    } else if (request.method !== 'POST') {
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${this.title}</title></head><body>` +
            '<form method="post"><button name="result" value="authenticated">Authenticate</button>' +
            '<button name="result" value="failed">Fail authentication</button></form></body></html>',
        );
    } else {
      const result = new URLSearchParams(body).get('result') === 'authenticated' ? 'authenticated' : 'failed';
      void Promise.resolve(this.authenticate(id, result)).then((location) => {
        if (location) response.writeHead(302, { location }).end();
        else response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<p>done</p>');
      });
    }
    return true;
  }
}
