import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostPage {
  server: Server;
  origin: string;
}

/**
 * A customer's page on its own origin: a Content-Security-Policy that allows only the API's origin for scripts and
 * connections (no inline script or style), aggressive CSS of its own, the script tag and the element.
 */
export async function hostPage(api: string, element: () => string): Promise<HostPage> {
  const server = createServer((request, response) => {
    // The same server's blank page: the baseline of a page load in this browser.
    if (request.url === '/blank') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><html lang="en"><head><title>Blank</title></head><body></body></html>');
      return;
    }
    // The page's own CSS, as hostile as it gets: it must not reach inside the booker.
    if (request.url === '/page.css') {
      response.writeHead(200, { 'content-type': 'text/css' });
      response.end('* { all: unset; } button { color: red !important; } h1 { display: block; font-size: 32px; }');
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; script-src ${api}; connect-src ${api}; style-src 'self'`,
    });
    response.end(`<!doctype html><html lang="en"><head><title>Shop</title><link rel="stylesheet" href="/page.css"></head>
<body><main><h1>Book a call</h1>${element()}</main><script src="${api}/booker.js"></script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
