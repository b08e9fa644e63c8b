import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { parseSimpleYaml } from '../../../src/kube/kubeconfig-yaml';

/** What the full parser gives, with numbers as strings (the fast reader keeps every scalar a string). */
function reference(text: string): unknown {
  return JSON.parse(JSON.stringify(parse(text), (_k, v: unknown) => (typeof v === 'number' ? String(v) : v)));
}

const KUBECTL_STYLE = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=
    server: https://127.0.0.1:40123
  name: kind-kind
- cluster:
    insecure-skip-tls-verify: true
    server: https://10.0.0.1:6443
    tls-server-name: api.internal
  name: lab
contexts:
- context:
    cluster: kind-kind
    namespace: prod
    user: kind-kind
  name: kind-kind
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ==
- name: eks
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - eu-west-1
      - eks
      - get-token
      - --cluster-name
      - "prod cluster"
      command: aws
      env:
      - name: AWS_PROFILE
        value: 'prod'
      - name: EMPTY
        value: ""
      interactiveMode: IfAvailable
      provideClusterInfo: false
- name: token-user
  user:
    token: abc.def-ghi_jkl
    as: alice
    as-groups:
      - devs
      - "ops:admins"
`;

const INDENTED_SEQUENCES = `# written by hand
apiVersion: v1
kind: Config
current-context: "c1"   # trailing comment
clusters:
  - name: c1
    cluster:
      server: http://127.0.0.1:8080
      proxy-url: http://proxy:3128
contexts:
  - name: c1
    context: {cluster: c1}
users: []
`;

const SANDBOX = `apiVersion: v1
kind: Config
clusters:
- name: kruise-sandbox
  cluster:
    server: http://127.0.0.1:44375
users:
- name: kruise-sandbox-admin
  user: {}
contexts:
- name: kruise-sandbox
  context:
    cluster: kruise-sandbox
    user: kruise-sandbox-admin
    namespace: default
current-context: kruise-sandbox
preferences: {}
`;

test('kubectl-, kind- and sandbox-style kubeconfigs parse exactly like the yaml package', () => {
  for (const text of [KUBECTL_STYLE, SANDBOX, '', '# only a comment\n', '---\napiVersion: v1\nkind: Config\n', 'a:\nb: ~\nc: null\nd: "x # not a comment"\ne: it\'s\nf: \'it\'\'s\'\n']) {
    const fast = parseSimpleYaml(text);
    assert.notEqual(fast, undefined, `fast path expected for:\n${text}`);
    assert.deepEqual(fast, reference(text) ?? null, text);
  }
});

test('anything outside the subset is left to the full parser (never guessed)', () => {
  const outside = [
    INDENTED_SEQUENCES, // a flow mapping with content
    'a: |\n  block\n',
    'a: >\n  folded\n',
    'a: &x 1\nb: *x\n',
    'a: !!str 1\n',
    'a: [1, 2]\n',
    '? complex\n: key\n',
    'a: 1\n---\nb: 2\n',
    'a: "unterminated\n',
    'a: "\\u00e9"\n',
    'a:\n\tb: 1\n',
    'a: b: c\n',
    'a: 1\n  b: 2\n',
  ];
  for (const text of outside) assert.equal(parseSimpleYaml(text), undefined, text);
});

test('sequences indented under their key and at the key\'s level both work', () => {
  const text = 'users:\n  - name: a\n    user:\n      token: t1\nusers2:\n- name: b\n';
  assert.deepEqual(parseSimpleYaml(text), reference(text));
});
