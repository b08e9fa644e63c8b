// Which proxy kubectl would use (src/kube/proxy.ts), checked against Go's own tables:
// golang.org/x/net http/httpproxy/proxy_test.go (proxyForURLTests, UseProxyTests with its noProxy list,
// TestInvalidNoProxy, TestAllNoProxy, TestFromEnvironment*), rows ported as data. Then what client-go
// adds: the cluster's proxy-url wins and applies to every server (tools/clientcmd/client_config.go:
// http.ProxyURL), with http, https or socks5 only (tools/clientcmd/helpers.go parseProxyURL).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { displayProxy, formatProxyUrl, parseClusterProxyUrl, parseNoProxy, proxyEnvironment, proxyFromEnvironment, selectProxy, useProxy, type ProxyEnvironment, type ProxyTarget } from '../../../src/kube/proxy';

/** A request URL of Go's tables as our target: scheme, host (brackets off, %25 decoded), port. */
function target(url: string): ProxyTarget {
  const m = /^(\w+):\/\/(\[[^\]]+\]|[^:/]+)(?::(\d+))?/.exec(url)!;
  return { scheme: m[1]!, hostname: decodeURIComponent(m[2]!.replace(/^\[(.*)\]$/, '$1')), port: m[3] ?? '' };
}

function config(c: { HTTPProxy?: string; HTTPSProxy?: string; NoProxy?: string; CGI?: boolean }): ProxyEnvironment {
  return { httpProxy: c.HTTPProxy ?? '', httpsProxy: c.HTTPSProxy ?? '', noProxy: c.NoProxy ?? '', cgi: c.CGI ?? false, names: {} };
}

// proxy_test.go proxyForURLTests: cfg, req ("" means http://example.com), want ("<nil>": no proxy), wanterr.
const proxyForURLTests: Array<{ cfg: Parameters<typeof config>[0]; req?: string; want: string; wanterr?: string }> = [
  { cfg: { HTTPProxy: '127.0.0.1:8080' }, want: 'http://127.0.0.1:8080' },
  { cfg: { HTTPProxy: 'cache.corp.example.com:1234' }, want: 'http://cache.corp.example.com:1234' },
  { cfg: { HTTPProxy: 'cache.corp.example.com' }, want: 'http://cache.corp.example.com' },
  // single label domain is recognized as scheme by url.Parse
  { cfg: { HTTPProxy: 'localhost' }, want: 'http://localhost' },
  { cfg: { HTTPProxy: 'https://cache.corp.example.com' }, want: 'https://cache.corp.example.com' },
  { cfg: { HTTPProxy: 'http://127.0.0.1:8080' }, want: 'http://127.0.0.1:8080' },
  { cfg: { HTTPProxy: 'https://127.0.0.1:8080' }, want: 'https://127.0.0.1:8080' },
  { cfg: { HTTPProxy: 'socks5://127.0.0.1' }, want: 'socks5://127.0.0.1' },
  // Preserve unknown schemes.
  { cfg: { HTTPProxy: 'foo://host' }, want: 'foo://host' },
  // Don't use secure for http
  { cfg: { HTTPProxy: 'http.proxy.tld', HTTPSProxy: 'secure.proxy.tld' }, req: 'http://insecure.tld/', want: 'http://http.proxy.tld' },
  // Use secure for https.
  { cfg: { HTTPProxy: 'http.proxy.tld', HTTPSProxy: 'secure.proxy.tld' }, req: 'https://secure.tld/', want: 'http://secure.proxy.tld' },
  { cfg: { HTTPProxy: 'http.proxy.tld', HTTPSProxy: 'https://secure.proxy.tld' }, req: 'https://secure.tld/', want: 'https://secure.proxy.tld' },
  { cfg: { HTTPProxy: 'http.proxy.tld' }, req: 'https://secure.tld/', want: '<nil>' },
  { cfg: { HTTPProxy: 'http.proxy.tld' }, req: 'ftp://insecure.tld/', want: '<nil>' },
  // Issue 16405: don't use HTTP_PROXY in a CGI environment, where HTTP_PROXY can be attacker-controlled.
  { cfg: { HTTPProxy: 'http://10.1.2.3:8080', CGI: true }, want: '<nil>', wanterr: 'refusing to use HTTP_PROXY value in CGI environment; see golang.org/s/cgihttpproxy' },
  // HTTPS proxy is still used even in CGI environment.
  { cfg: { HTTPSProxy: 'https://secure.proxy.tld', CGI: true }, req: 'https://secure.tld/', want: 'https://secure.proxy.tld' },
  { cfg: {}, want: '<nil>' },
  { cfg: { NoProxy: 'example.com', HTTPProxy: 'proxy' }, req: 'http://example.com/', want: '<nil>' },
  { cfg: { NoProxy: '.example.com', HTTPProxy: 'proxy' }, req: 'http://example.com/', want: 'http://proxy' },
  { cfg: { NoProxy: 'ample.com', HTTPProxy: 'proxy' }, req: 'http://example.com/', want: 'http://proxy' },
  { cfg: { NoProxy: 'example.com', HTTPProxy: 'proxy' }, req: 'http://foo.example.com/', want: '<nil>' },
  { cfg: { NoProxy: '.foo.com', HTTPProxy: 'proxy' }, req: 'http://example.com/', want: 'http://proxy' },
  { cfg: { NoProxy: '.示例.com', HTTPProxy: 'proxy' }, req: 'http://www.示例.com', want: '<nil>' },
  { cfg: { NoProxy: 'xn--fsq092h.com', HTTPProxy: 'proxy' }, req: 'http://www.示例.com', want: '<nil>' },
  { cfg: { NoProxy: '示例.com', HTTPProxy: 'proxy' }, req: 'http://www.xn--fsq092h.com', want: '<nil>' },
  // CVE-2025-22870: an IPv6 zone is not a domain.
  { cfg: { NoProxy: 'example.com', HTTPProxy: 'proxy' }, req: 'http://[1000::%25.example.com]:123', want: 'http://proxy' },
];

describe('httpproxy proxy_test.go: proxyForURLTests', () => {
  for (const tt of proxyForURLTests) {
    const req = tt.req ?? 'http://example.com';
    test(`${JSON.stringify(tt.cfg)} req=${req} → ${tt.wanterr ? `error` : tt.want}`, () => {
      const d = proxyFromEnvironment(config(tt.cfg), target(req));
      if (tt.wanterr) {
        assert.deepEqual(d, { kind: 'error', message: tt.wanterr });
        return;
      }
      assert.equal(d.kind === 'proxy' ? formatProxyUrl(d.proxy) : '<nil>', tt.want);
    });
  }
});

// proxy_test.go UseProxyTests, against its noProxy list, each host with ":80".
const noProxy = 'foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, 10.0.0.0/30, 2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64';
const UseProxyTests: Array<[host: string, match: boolean]> = [
  // Never proxy localhost:
  ['localhost', false],
  ['127.0.0.1', false],
  ['127.0.0.2', false],
  ['[::1]', false],
  ['[::2]', true], // not a loopback address
  ['192.168.1.1', false], // matches exact IPv4
  ['192.168.1.2', true], // ports do not match
  ['192.168.1.3', false], // matches exact IPv4:port
  ['192.168.1.4', true], // no match
  ['10.0.0.2', false], // matches IPv4/CIDR
  ['[2001:db8::52:0:1]', false], // matches exact IPv6
  ['[2001:db8::52:0:2]', true], // no match
  ['[2001:db8::52:0:3]', false], // matches exact [IPv6]:port
  ['[2002:db8:a::123]', false], // matches IPv6/CIDR
  ['[fe80::424b:c8be:1643:a1b6]', true], // no match
  ['barbaz.net', true], // does not match as .barbaz.net
  ['www.barbaz.net', false], // does match as .barbaz.net
  ['foobar.com', false], // does match as foobar.com
  ['www.foobar.com', false], // match because NO_PROXY includes "foobar.com"
  ['foofoobar.com', true], // not match as a part of foobar.com
  ['baz.com', true], // not match as a part of barbaz.com
  ['localhost.net', true], // not match as suffix of address
  ['local.localhost', true], // not match as prefix as address
  ['barbarbaz.net', true], // not match, wrong domain
  ['wildcard.io', true], // does not match as *.wildcard.io
  ['nested.wildcard.io', false], // match as *.wildcard.io
  ['awildcard.io', true], // not a match because of '*'
];
const bare = (host: string): string => host.replace(/^\[(.*)\]$/, '$1');

describe('httpproxy proxy_test.go: TestUseProxy, TestInvalidNoProxy, TestAllNoProxy', () => {
  test('TestUseProxy: every row of UseProxyTests', () => {
    const rules = parseNoProxy(noProxy);
    for (const [host, match] of UseProxyTests) assert.equal(useProxy(rules, bare(host), '80'), match, host);
  });
  test('TestInvalidNoProxy: ":1" is ignored', () => {
    assert.equal(useProxy(parseNoProxy(':1'), 'example.com', '80'), true);
  });
  test('TestAllNoProxy: "*" exempts every host', () => {
    const rules = parseNoProxy('*');
    for (const [host] of UseProxyTests) assert.equal(useProxy(rules, bare(host), '80'), false, host);
  });
});

describe('httpproxy proxy_test.go: TestFromEnvironment, TestFromEnvironmentWithRequestMethod, TestFromEnvironmentLowerCase', () => {
  test('upper case', () => {
    const c = proxyEnvironment({ HTTP_PROXY: 'httpproxy', HTTPS_PROXY: 'httpsproxy', NO_PROXY: 'noproxy', REQUEST_METHOD: '' });
    assert.deepEqual([c.httpProxy, c.httpsProxy, c.noProxy, c.cgi], ['httpproxy', 'httpsproxy', 'noproxy', false]);
  });
  test('REQUEST_METHOD set: CGI', () => {
    assert.equal(proxyEnvironment({ HTTP_PROXY: 'httpproxy', REQUEST_METHOD: 'PUT' }).cgi, true);
  });
  test('lower case', () => {
    const c = proxyEnvironment({ http_proxy: 'httpproxy', https_proxy: 'httpsproxy', no_proxy: 'noproxy' });
    assert.deepEqual([c.httpProxy, c.httpsProxy, c.noProxy, c.names], ['httpproxy', 'httpsproxy', 'noproxy', { httpProxy: 'http_proxy', httpsProxy: 'https_proxy', noProxy: 'no_proxy' }]);
  });
  test('upper case first; an empty value counts as unset (getEnvAny)', () => {
    const c = proxyEnvironment({ HTTPS_PROXY: 'upper', https_proxy: 'lower', NO_PROXY: '', no_proxy: 'lower-no' });
    assert.deepEqual([c.httpsProxy, c.noProxy, c.names.httpsProxy, c.names.noProxy], ['upper', 'lower-no', 'HTTPS_PROXY', 'no_proxy']);
  });
});

describe('NO_PROXY details beyond the tables (httpproxy config.init)', () => {
  const uses = (no: string, host: string, port = '443'): boolean => useProxy(parseNoProxy(no), host, port);
  test('entries are trimmed and case-insensitive; the request host too', () => {
    assert.equal(uses('  Example.COM ', 'API.example.com'), false);
  });
  test('a domain with a port matches that port only; an empty port matches any', () => {
    assert.equal(uses('example.com:6443', 'api.example.com', '6443'), false);
    assert.equal(uses('example.com:6443', 'api.example.com', '443'), true);
    assert.equal(uses('example.com:', 'api.example.com', '443'), false);
  });
  test('IPv4 and IPv4-mapped IPv6 are the same address; an IPv4 CIDR holds no IPv6 address and the reverse', () => {
    assert.equal(uses('10.1.2.3', '::ffff:10.1.2.3'), false);
    assert.equal(uses('::ffff:10.1.2.3', '10.1.2.3'), false);
    assert.equal(uses('10.0.0.0/8', '::ffff:10.9.9.9'), false);
    assert.equal(uses('::/0', '10.9.9.9'), true);
    assert.equal(uses('0.0.0.0/0', '2001:db8::1'), true);
  });
  test('malformed entries are ignored, not fatal', () => {
    assert.equal(uses('010.0.0.1, 10.0.0.0/33, [::1, ]:80', 'example.com'), true);
  });
  test('an address never matches a domain entry', () => {
    assert.equal(uses('1', '0.0.0.1'), true);
  });
  test('the default port of the scheme is the port compared', () => {
    const env = config({ HTTPSProxy: 'proxy:3128', NoProxy: 'api.example.com:443' });
    assert.equal(proxyFromEnvironment(env, { scheme: 'https', hostname: 'api.example.com', port: '' }).kind, 'bypass');
    assert.equal(proxyFromEnvironment(env, { scheme: 'https', hostname: 'api.example.com', port: '6443' }).kind, 'proxy');
  });
});

describe("client-go: the cluster's proxy-url", () => {
  const cluster = (url: string) => {
    const parsed = parseClusterProxyUrl(url);
    assert.ok('proxy' in parsed, JSON.stringify(parsed));
    return { proxy: parsed.proxy, source: 'proxy-url of cluster "c"' };
  };
  test('wins over the environment and applies to every server, NO_PROXY and loopback included', () => {
    const env = { HTTPS_PROXY: 'http://env-proxy:3128', NO_PROXY: '*' };
    for (const server of ['https://api.example.com:6443', 'https://127.0.0.1:6443', 'http://localhost:8080']) {
      const s = selectProxy(server, cluster('socks5://127.0.0.1:1080'), env);
      assert.equal(s.choice && formatProxyUrl(s.choice.proxy), 'socks5://127.0.0.1:1080', server);
      assert.equal(s.choice?.source, 'proxy-url of cluster "c"');
    }
  });
  test('http, https and socks5 only, in client-go words', () => {
    assert.deepEqual(parseClusterProxyUrl('socks5h://p:1080'), { problem: 'unsupported scheme "socks5h", must be http, https, or socks5' });
    assert.deepEqual(parseClusterProxyUrl('proxy:3128'), { problem: 'unsupported scheme "proxy", must be http, https, or socks5' });
    assert.deepEqual(parseClusterProxyUrl('not a url'), { problem: 'could not parse: not a url' });
    assert.deepEqual(parseClusterProxyUrl('https://user:p%40ss@proxy.corp:8443'), { proxy: { scheme: 'https', hostname: 'proxy.corp', port: '8443', username: 'user', password: 'p@ss' } });
  });
});

describe('selectProxy from the environment', () => {
  test('HTTPS_PROXY for https servers, HTTP_PROXY for http ones, naming the variable', () => {
    const env = { HTTPS_PROXY: 'secure:3128', http_proxy: 'socks5://plain:1080' };
    assert.deepEqual(selectProxy('https://api.example.com', undefined, env).choice, { proxy: { scheme: 'http', hostname: 'secure', port: '3128' }, source: 'HTTPS_PROXY' });
    assert.deepEqual(selectProxy('http://api.example.com', undefined, env).choice, { proxy: { scheme: 'socks5', hostname: 'plain', port: '1080' }, source: 'http_proxy' });
  });
  test('why none applies, for -v=6', () => {
    assert.deepEqual(selectProxy('https://127.0.0.1:6443', undefined, { HTTPS_PROXY: 'p:1' }), { bypass: 'HTTPS_PROXY is set, but 127.0.0.1 is a loopback address (never proxied)' });
    assert.deepEqual(selectProxy('https://api.corp:6443', undefined, { HTTPS_PROXY: 'p:1', no_proxy: '.corp' }), { bypass: 'no_proxy matches api.corp' });
    assert.deepEqual(selectProxy('https://api.corp:6443', undefined, { HTTP_PROXY: 'p:1' }), {});
  });
  test('a scheme we cannot speak to a proxy is a problem naming the variable (no password shown); HTTP_PROXY under CGI too', () => {
    assert.deepEqual(selectProxy('https://api.corp', undefined, { HTTPS_PROXY: 'ftp://u:secret@p:2121' }), { problem: 'HTTPS_PROXY names a proxy of scheme "ftp" (ftp://****@p:2121): only http, https and socks5 proxies are supported' });
    assert.match(selectProxy('http://api.corp', undefined, { HTTP_PROXY: 'p:1', REQUEST_METHOD: 'GET' }).problem!, /refusing to use HTTP_PROXY value in CGI environment/);
    assert.equal(selectProxy('https://api.corp', undefined, { HTTPS_PROXY: 'socks5h://p:1080' }).choice?.proxy.scheme, 'socks5h');
  });
  test('displayProxy hides userinfo', () => {
    assert.equal(displayProxy({ scheme: 'http', hostname: '::1', port: '3128', username: 'u', password: 'pw' }), 'http://****@[::1]:3128');
    assert.equal(displayProxy({ scheme: 'socks5', hostname: 'p', port: '' }), 'socks5://p');
  });
});
