#!/usr/bin/python3
"""Drives the sandbox with the official Kubernetes Python client (Debian's python3-kubernetes).

Usage: scenarios.py SCENARIO   (KUBECONFIG names the sandbox)
Prints one JSON object of what the client saw; test/e2e/python-client.test.ts asserts on it.
Nothing here asserts: the observations are plain data, so a failure shows the whole picture.
"""
import json
import os
import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

NS = 'default'


def api_error(fn, *args, **kwargs):
    """Calls fn and returns what an ApiException carried (status, kube reason, message), or None."""
    try:
        fn(*args, **kwargs)
    except ApiException as e:
        body = {}
        try:
            body = json.loads(e.body) if e.body else {}
        except ValueError:
            body = {'raw': str(e.body)}
        return {'status': e.status, 'reason': body.get('reason'), 'message': body.get('message'),
                'causes': (body.get('details') or {}).get('causes')}
    return None


def cm(name, labels, data=None, annotations=None):
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels=labels, annotations=annotations),
                              data=data or {'k': 'v'})


def core_crud(v1):
    out = {}
    labels = {'suite': 'py-crud'}
    created = v1.create_namespaced_config_map(NS, cm('py-a', labels))
    v1.create_namespaced_config_map(NS, cm('py-b', labels))
    v1.create_namespaced_config_map(NS, cm('py-other', {'suite': 'elsewhere'}))
    out['created_rv'] = created.metadata.resource_version
    out['duplicate'] = api_error(v1.create_namespaced_config_map, NS, cm('py-a', labels))
    out['missing'] = api_error(v1.read_namespaced_config_map, 'py-missing', NS)
    out['listed'] = sorted(i.metadata.name for i in v1.list_namespaced_config_map(NS, label_selector='suite=py-crud').items)
    out['listed_set_based'] = sorted(i.metadata.name for i in v1.list_namespaced_config_map(NS, label_selector='suite in (py-crud,elsewhere),suite!=py-crud').items)
    page1 = v1.list_namespaced_config_map(NS, label_selector='suite=py-crud', limit=1)
    page2 = v1.list_namespaced_config_map(NS, label_selector='suite=py-crud', limit=1, _continue=page1.metadata._continue)
    out['pages'] = [[i.metadata.name for i in page1.items], [i.metadata.name for i in page2.items], page2.metadata._continue]
    out['bad_limit'] = api_error(v1.list_namespaced_config_map, NS, limit='ten')
    patched = v1.patch_namespaced_config_map('py-a', NS, {'data': {'k': 'patched'}, 'metadata': {'labels': {'tier': 'x'}}})
    out['patched'] = {'data': patched.data, 'labels': patched.metadata.labels}
    stale = v1.read_namespaced_config_map('py-a', NS)
    stale_rv = created.metadata.resource_version
    stale.metadata.resource_version = stale_rv
    stale.data = {'k': 'stale'}
    out['stale_update'] = api_error(v1.replace_namespaced_config_map, 'py-a', NS, stale)
    fresh = v1.read_namespaced_config_map('py-a', NS)
    fresh.data = {'k': 'replaced'}
    out['replaced'] = v1.replace_namespaced_config_map('py-a', NS, fresh).data
    out['too_many_annotations'] = api_error(v1.create_namespaced_config_map, NS,
                                            cm('py-big', labels, annotations={'a': 'b' * (256 * 1024)}))
    out['dry_run_create'] = v1.create_namespaced_config_map(NS, cm('py-dry', labels), dry_run='All').metadata.name
    out['dry_run_stored'] = api_error(v1.read_namespaced_config_map, 'py-dry', NS)
    v1.delete_namespaced_config_map('py-b', NS, grace_period_seconds=0, propagation_policy='Background')
    out['after_delete'] = api_error(v1.read_namespaced_config_map, 'py-b', NS)
    out['delete_missing'] = api_error(v1.delete_namespaced_config_map, 'py-b', NS)
    return out


def watch_core(v1):
    out = {}
    labels = {'suite': 'py-watch'}
    v1.create_namespaced_config_map(NS, cm('w-initial', labels))
    # A watch without a resourceVersion starts with the current state, then ends at timeout_seconds.
    w = watch.Watch()
    out['initial'] = [(e['type'], e['object'].metadata.name) for e in
                      w.stream(v1.list_namespaced_config_map, NS, label_selector='suite=py-watch', timeout_seconds=1)]
    rv = v1.list_namespaced_config_map(NS, label_selector='suite=py-watch').metadata.resource_version
    v1.create_namespaced_config_map(NS, cm('w-1', labels))
    v1.create_namespaced_config_map(NS, cm('w-unrelated', {'suite': 'not-watched'}))
    v1.patch_namespaced_config_map('w-1', NS, {'data': {'k': 'v2'}})
    v1.patch_namespaced_config_map('w-initial', NS, {'metadata': {'labels': {'suite': 'moved-away'}}})
    v1.delete_namespaced_config_map('w-1', NS)
    w = watch.Watch()
    events = []
    for e in w.stream(v1.list_namespaced_config_map, NS, label_selector='suite=py-watch', resource_version=rv,
                      timeout_seconds=1, allow_watch_bookmarks=True):
        if e['type'] == 'BOOKMARK':
            continue
        obj = e['object']
        events.append([e['type'], obj.metadata.name, (obj.data or {}).get('k'), int(obj.metadata.resource_version) > int(rv)])
    out['from_rv'] = events
    out['watch_resource_version'] = w.resource_version is not None and int(w.resource_version) > int(rv)
    return out


def cloneset_body(name, replicas):
    return {
        'apiVersion': 'apps.kruise.io/v1alpha1', 'kind': 'CloneSet',
        'metadata': {'name': name, 'labels': {'suite': 'py-cs'}},
        'spec': {'replicas': replicas, 'selector': {'matchLabels': {'app': name}},
                 'template': {'metadata': {'labels': {'app': name}},
                              'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25'}]}},
                 'updateStrategy': {'type': 'InPlaceIfPossible'}},
    }


def ready(pod):
    for c in (pod.status.conditions or []) if pod.status else []:
        if c.type == 'Ready' and c.status == 'True':
            return True
    return False


def cloneset(v1, co):
    out = {}
    g, ver, plural = 'apps.kruise.io', 'v1alpha1', 'clonesets'
    created = co.create_namespaced_custom_object(g, ver, NS, plural, cloneset_body('py-web', 2))
    out['created'] = {'kind': created['kind'], 'uid': bool(created['metadata'].get('uid'))}
    out['duplicate'] = api_error(co.create_namespaced_custom_object, g, ver, NS, plural, cloneset_body('py-web', 2))
    bad = cloneset_body('py-bad', 1)
    bad['spec']['replicas'] = 'two'
    out['invalid'] = api_error(co.create_namespaced_custom_object, g, ver, NS, plural, bad)
    out['missing'] = api_error(co.get_namespaced_custom_object, g, ver, NS, plural, 'py-nope')
    out['listed'] = [i['metadata']['name'] for i in co.list_namespaced_custom_object(g, ver, NS, plural, label_selector='suite=py-cs')['items']]
    # Follow the pods like rollout status does: a label-selected pod watch until both are ready.
    w = watch.Watch()
    ready_pods = set()
    deadline = time.time() + 60
    for e in w.stream(v1.list_namespaced_pod, NS, label_selector='app=py-web', timeout_seconds=60):
        pod = e['object']
        if e['type'] != 'DELETED' and ready(pod):
            ready_pods.add(pod.metadata.name)
        else:
            ready_pods.discard(pod.metadata.name)
        if len(ready_pods) >= 2 or time.time() > deadline:
            w.stop()
    out['ready_pods'] = len(ready_pods)
    # This client sends CustomObjectsApi patches as application/merge-patch+json.
    rv = co.get_namespaced_custom_object(g, ver, NS, plural, 'py-web')['metadata']['resourceVersion']
    patched = co.patch_namespaced_custom_object(g, ver, NS, plural, 'py-web', {'spec': {'replicas': 3}})
    out['merge_patched_replicas'] = patched['spec']['replicas']
    # CoreV1Api sends a dict patch as strategic merge, which kube refuses for custom resources:
    # the same body through the generic client, to see that 415.
    out['strategic_patch'] = api_error(
        co.api_client.call_api, '/apis/{group}/{version}/namespaces/{namespace}/{plural}/{name}', 'PATCH',
        {'group': g, 'version': ver, 'namespace': NS, 'plural': plural, 'name': 'py-web'}, [],
        {'Content-Type': 'application/strategic-merge-patch+json', 'Accept': 'application/json'},
        body={'spec': {'replicas': 4}}, response_type='object', auth_settings=['BearerToken'])
    w = watch.Watch()
    seen = []
    for e in w.stream(co.list_namespaced_custom_object, g, ver, NS, plural, label_selector='suite=py-cs',
                      resource_version=rv, timeout_seconds=2):
        obj = e['object']
        if obj['metadata']['name'] != 'py-web':
            continue
        seen.append([e['type'], obj['spec']['replicas']])
        if e['type'] == 'MODIFIED' and obj['spec']['replicas'] == 3:
            w.stop()
    out['watched'] = seen[-1:]
    scale = co.get_namespaced_custom_object_scale(g, ver, NS, plural, 'py-web')
    out['scale'] = {'kind': scale['kind'], 'spec': scale['spec']['replicas']}
    co.delete_namespaced_custom_object(g, ver, NS, plural, 'py-web', propagation_policy='Foreground')
    gone = None
    for _ in range(200):
        gone = api_error(co.get_namespaced_custom_object, g, ver, NS, plural, 'py-web')
        if gone:
            break
        time.sleep(0.05)
    out['after_delete'] = gone
    return out


def main():
    config.load_kube_config(config_file=os.environ['KUBECONFIG'])
    v1 = client.CoreV1Api()
    co = client.CustomObjectsApi()
    scenario = sys.argv[1]
    if scenario == 'core-crud':
        result = core_crud(v1)
    elif scenario == 'watch-core':
        result = watch_core(v1)
    elif scenario == 'cloneset':
        result = cloneset(v1, co)
    else:
        raise SystemExit('unknown scenario ' + scenario)
    print(json.dumps(result))


if __name__ == '__main__':
    main()
