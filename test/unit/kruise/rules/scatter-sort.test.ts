// Rows of Kruise's TestScatterPodsByRule and TestSort (pkg/util/updatesort/scatter_sort_test.go, v1.9.0)
// against our scatter sorter. As in the Go tests: for TestScatterPodsByRule the pods are the first
// len(expected) label strings ("k=v,k2=v2"); for TestSort every label set is a pod (null: no pod), the
// waiting indexes being the first len(expected) non-null ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scatterByTerm, scatterSort, type ScatterTerm } from '../../../../src/kruise/rules/scatter-sort';

const RULE_ROWS: Array<[string, string[], number[]]> = [
  ["no label", [""], [0]],
  ["only one scattered pod", ["labelA=AAA"], [0]],
  ["odd scattered pod + odd ordinary pod", ["labelA=AAA", "bbb"], [0, 1]],
  ["even scattered pods + even ordinary pods", ["", "", "", "", "labelA=AAA", "labelA=AAA"], [4, 0, 1, 2, 3, 5]],
  ["odd scattered pods + odd ordinary pods", ["", "", "", "labelA=AAA", "labelA=AAA", "labelA=AAA"], [3, 0, 1, 4, 2, 5]],
  ["even scattered pods + odd ordinary pods", ["", "", "", "labelA=AAA", "", "", "labelA=AAA"], [3, 0, 1, 2, 4, 5, 6]],
  ["odd scattered pods + even ordinary pods", ["", "", "", "", "", "", "labelA=AAA", "labelA=AAA", "labelA=AAA"], [6, 0, 1, 2, 7, 3, 4, 5, 8]],
  ["even scattered pods + even ordinary pods + scattered pods more than ordinary pods", ["", "", "labelA=AAA", "labelA=AAA", "labelA=AAA", "labelA=AAA"], [2, 3, 0, 4, 1, 5]],
  ["odd scattered pods + odd ordinary pods + scattered pods more than ordinary pods", ["", "", "", "labelA=AAA", "labelA=AAA", "labelA=AAA", "labelA=AAA", "labelA=AAA"], [3, 0, 1, 4, 2, 5]],
  ["even scattered pods + odd ordinary pods + scattered pods more than ordinary pods", ["", "", "labelA=AAA", "", "labelA=AAA", "labelA=AAA", "labelA=AAA", "labelA=AAA", "labelA=AAA"], [2, 4, 0, 5, 6, 1, 7, 3, 8]],
  ["odd scattered pods + even ordinary pods + scattered pods more than ordinary pods", ["", "labelA=AAA", "", "labelA=AAA", "", "", "labelA=AAA", "labelA=AAA", "labelA=AAA"], [1, 0, 3, 2, 6, 4, 7, 5, 8]],
  ["invalid label", ["", "", "", "", "ee", "a", "", "labelA=AAA", "labelA=AAA", "labelA=AAA", "labelB=BBB"], [7, 0, 1, 2, 3, 8, 4, 5, 6, 9]],
];

const SORT_ROWS: Array<[string, Array<Record<string, string> | null>, ScatterTerm[], number[]]> = [
  ["a scattered pod + a ordinary pod", [{"labelA": "AAA", "labelB": "BBB"}], [{"key": "labelA", "value": "AAA"}], [0]],
  ["all ordinary pods", [{}, {}, {}, {}, {}, {}], [], [0, 1, 2, 3, 4, 5]],
  ["one pod one label", [{}, {}, {}, {}, {"labelA": "AAA"}, {"labelA": "AAA"}], [{"key": "labelA", "value": "AAA"}], [4, 0, 1, 2, 3, 5]],
  ["one pod more labels", [{}, {}, {}, {}, {"sdfb": "eee"}, {"dsf": "same"}, {"labelB": "BBB"}, {"labelA": "AAA"}, {"labelA": "AAA"}, {"labelA": "AAA", "labelB": "BBB"}], [{"key": "labelB", "value": "BBB"}], [6, 0, 1, 2, 3, 4, 5, 7, 8, 9]],
  ["2 dimensions + one pod one label", [{"labelB": "BBB"}, {"labelB": "BBB"}, {}, {}, {"labelA": "AAA"}, {"labelA": "AAA"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}], [0, 4, 2, 3, 5, 1]],
  ["2 dimensions + one pod more labels", [{}, {}, {}, {"labelB": "BBB"}, {"labelA": "AAA", "labelB": "BBB"}, {"labelA": "AAA"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}], [4, 0, 1, 2, 5, 3]],
  ["2 dimensions + same label + sequence: A + B", [{}, {}, {}, {}, {"sdfb": "eee"}, {"dsf": "same"}, {"labelB": "BBB"}, {"labelA": "AAA"}, {"labelA": "AAA"}, {"labelB": "BBB"}], [{"key": "labelB", "value": "BBB"}, {"key": "labelA", "value": "AAA"}], [7, 6, 0, 1, 2, 3, 4, 5, 9, 8]],
  ["2 dimensions + same label + sequence: B + A", [{}, {}, {}, {}, {"sdfb": "eee"}, {"dsf": "same"}, {"labelB": "BBB"}, {"labelA": "AAA"}, {"labelA": "AAA"}, {"labelB": "BBB"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}], [6, 7, 0, 1, 2, 3, 4, 5, 8, 9]],
  ["2 dimensions + same pod same label + even scatter pods + even ordinary pods", [{}, {}, {}, {}, {"sdfb": "eee"}, {"dsf": "same"}, {"labelA": "AAA", "labelB": "BBB"}, {}, {}, {"labelB": "BBB", "labelA": "AAA"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}], [6, 0, 1, 2, 3, 4, 5, 7, 8, 9]],
  ["2 dimensions + same pod same label + even scatter pods + odd ordinary pods", [{}, {}, {}, {"sdfb": "eee"}, {"dsf": "same"}, {"labelA": "AAA", "labelB": "BBB"}, {}, {}, {"labelB": "BBB", "labelA": "AAA"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}], [5, 0, 1, 2, 3, 4, 6, 7, 8]],
  ["2 dimensions + same pod same label + odd scatter pods + odd ordinary pods", [{}, {}, {}, {"labelA": "AAA"}, {"sdfb": "eee"}, {"dsf": "same"}, {"labelA": "AAA", "labelB": "BBB"}, {}, {}, {}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}], [3, 0, 1, 2, 4, 5, 7, 6]],
  ["2 dimensions + same pod same label + odd scatter pods + odd ordinary pods", [{}, {}, {}, {"labelA": "AAA"}, {}, {}, {"sdfb": "eee"}, {"dsf": "same"}, {"labelA": "AAA", "labelB": "BBB"}, {}, {}, {"labelB": "BBB", "labelA": "AAA"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}], [0, 1, 2, 4, 3, 5, 6, 7, 9, 10, 8]],
  ["2 dimensions + same pod same label + even scatter pods + even ordinary pods + scatter pods more than ordinary pods", [{}, {}, {}, {"labelA": "AAA"}, {"sdfb": "eee", "labelA": "AAA"}, {"dsf": "same"}, {"labelA": "AAA", "labelB": "BBB"}, {}, {}, {"labelB": "BBB", "labelA": "AAA"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}], [6, 3, 0, 1, 4, 2, 5, 7, 8, 9]],
  ["2 dimensions + same pod same label + even scatter pods + odd ordinary pods + scatter pods more than ordinary pods", [{}, {"labelA": "AAA"}, {"labelA": "AAA"}, {"sdfb": "eee"}, {"dsf": "same"}, {"labelA": "AAA", "labelB": "BBB"}, {}, {}, {"labelB": "BBB", "labelA": "AAA"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}], [5, 1, 0, 3, 2, 4, 6, 7, 8]],
  ["2 dimensions + same pod same label + odd scatter pods + odd ordinary pods + scatter pods more than ordinary pods", [{"labelA": "AAA"}, {}, {}, {"labelA": "AAA"}, {"sdfb": "eee", "labelA": "AAA"}, {"dsf": "same"}, {"labelA": "AAA", "labelB": "BBB"}, {}, {}, {"labelB": "BBB", "labelA": "AAA"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}], [1, 0, 2, 3, 5, 4, 7, 6]],
  ["2 dimensions + same pod same label + odd scatter pods + odd ordinary pods + scatter pods more than ordinary pods", [{}, {}, {"labelA": "AAA"}, {"labelA": "AAA"}, {}, {"labelA": "AAA"}, {"sdfb": "eee"}, {"dsf": "same"}, {"labelA": "AAA", "labelB": "BBB"}, {}, {}, {"labelB": "BBB", "labelA": "AAA"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}], [0, 2, 1, 4, 3, 6, 7, 5, 9, 10, 8]],
  ["3 dimensions + one pod one label", [{}, {"labelA": "AAA"}, {"labelA": "AAA"}, {"labelB": "BBB"}, {"labelB": "BBB"}, {"labelC": "CCC"}, {"labelC": "CCC"}, {"labelC": "CCC"}, {"labelC": "CCC"}, {"labelC": "CCC"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}, {"key": "labelC", "value": "CCC"}], [3, 1, 5, 0, 6, 7, 8, 9, 2, 4]],
  ["3 dimensions + one pod more label", [{}, {"labelA": "AAA"}, {"labelA": "AAA", "labelC": "CCC"}, {"labelB": "BBB", "labelC": "CCC"}, {"labelB": "BBB"}, {}, {}, {"labelC": "CCC"}, {"labelC": "CCC"}, {"labelC": "CCC"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}, {"key": "labelC", "value": "CCC"}], [3, 2, 0, 7, 8, 5, 6, 9, 1, 4]],
  ["continuous sort 1", [{}, {}, {}, {}, {"labelA": "AAA"}, {"labelA": "AAA"}, {"labelA": "AAA"}], [{"key": "labelA", "value": "AAA"}], [0, 1, 4, 2, 3, 5]],
  ["continuous sort 2", [{"labelA": "AAA"}, {"labelA": "AAA"}, {}, {}, {}, {}, {}, {}, {}, {"labelA": "AAA"}], [{"key": "labelA", "value": "AAA"}], [2, 0, 3, 4, 5, 6, 1]],
  ["reserveOrdinals nil in slice", [{}, {"labelA": "AAA"}, {"labelA": "AAA", "labelC": "CCC"}, {"labelB": "BBB", "labelC": "CCC"}, {"labelB": "BBB"}, null, {}, {}, {"labelC": "CCC"}, {"labelC": "CCC"}, {"labelC": "CCC"}], [{"key": "labelA", "value": "AAA"}, {"key": "labelB", "value": "BBB"}, {"key": "labelC", "value": "CCC"}], [3, 2, 0, 8, 9, 6, 7, 10, 1, 4]],
];

function parseLabels(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of s.split(',')) {
    const [k, v] = part.split('=', 2);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

for (const [desc, labels, expected] of RULE_ROWS) {
  test(`TestScatterPodsByRule row "${desc}" (pkg/util/updatesort/scatter_sort_test.go)`, () => {
    const pods = labels.slice(0, expected.length).map(parseLabels);
    const indexes = pods.map((_, i) => i);
    assert.deepEqual(scatterByTerm({ key: 'labelA', value: 'AAA' }, pods, indexes), expected);
  });
}

for (const [desc, labels, terms, expected] of SORT_ROWS) {
  test(`TestSort row "${desc}" (pkg/util/updatesort/scatter_sort_test.go)`, () => {
    const pods = labels.map((l) => l ?? undefined);
    const indexes: number[] = [];
    for (let i = 0; i < pods.length && indexes.length < expected.length; i++) if (pods[i]) indexes.push(i);
    assert.deepEqual(scatterSort(terms, pods, indexes), expected);
  });
}
