// Rows of Kruise's TestCalculateDiffsWithExpectation (pkg/controller/cloneset/sync/cloneset_sync_utils_test.go,
// v1.9.0), run against our port of calculateDiffsWithExpectation. `set` is createTestCloneSet(replicas,
// partition, maxUnavailable, maxSurge); a pod is "<revision n|o>:<lifecycle state>:<R ready|->< D specified delete|->".
// As in the Go test, CloneSetPartitionRollback is on except in the row that turns it off, and currentRevision
// equals the update revision only in "revision consistent" rows. The two rows run with
// PreparingUpdateAsUpdate's IsPodUpdate are left out (that gate is off by default and not imitated).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calculateCloneSetDiffs, type DiffPod, type ExpectationDiffs } from '../../../../src/kruise/rules/cloneset-diffs';
import { explainCloneSetPartition } from '../../../../src/kruise/partition';
import { scaledValueFromIntOrPercent } from '../../../../src/kruise/intstr';
import { limitUpdates } from '../../../../src/kruise/rules/cloneset-plan';

interface Row {
  name: string;
  set: [number, number | string, number | string, number | string];
  scaleMaxUnavailable?: number | string;
  paused?: boolean;
  excludePreparingDelete?: boolean;
  revisionConsistent?: boolean;
  rollbackGateOff?: boolean;
  pods: string[];
  expect: ExpectationDiffs;
}

const ROWS: Row[] = [
  {"name": "an empty cloneset", "set": [0, 0, 1, 0], "pods": [], "expect": {}},
  {"name": "increase replicas to 5 (step 1/2)", "set": [5, 0, 1, 0], "pods": [], "expect": {"scaleUpNum": 5, "scaleUpLimit": 5}},
  {"name": "increase replicas to 5 (step 2/2)", "set": [5, 0, 1, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {}},
  {"name": "specified delete 1 pod (all ready) (step 1/3)", "set": [5, 0, 1, 0], "pods": ["n:Normal:RD", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"deleteReadyLimit": 1}},
  {"name": "specified delete 1 pod (all ready) (step 2/3)", "set": [5, 0, 1, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"scaleUpNum": 1, "scaleUpLimit": 1}},
  {"name": "specified delete 1 pod (all ready) (step 3/3)", "set": [5, 0, 1, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {}},
  {"name": "specified delete 2 pod (all ready) (step 1/6)", "set": [5, 0, 1, 0], "pods": ["n:Normal:RD", "n:Normal:RD", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"deleteReadyLimit": 1}},
  {"name": "specified delete 2 pod (all ready) (step 2/6)", "set": [5, 0, 1, 0], "pods": ["n:Normal:RD", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"scaleUpNum": 1, "scaleUpLimit": 1}},
  {"name": "specified delete 2 pod (all ready) (step 3/6)", "set": [5, 0, 1, 0], "pods": ["n:Normal:RD", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:--"], "expect": {}},
  {"name": "specified delete 2 pod (all ready) (step 4/6)", "set": [5, 0, 1, 0], "pods": ["n:Normal:RD", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"deleteReadyLimit": 1}},
  {"name": "specified delete 2 pod (all ready) (step 5/6)", "set": [5, 0, 1, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"scaleUpNum": 1, "scaleUpLimit": 1}},
  {"name": "specified delete 2 pod (all ready) (step 6/6)", "set": [5, 0, 1, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {}},
  {"name": "specified delete 2 pod and replicas to 4 (step 1/3)", "set": [4, 0, 1, 0], "pods": ["n:Normal:-D", "n:Normal:-D", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"deleteReadyLimit": 2}},
  {"name": "specified delete 2 pod and replicas to 4 (step 2/3)", "set": [4, 0, 1, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"scaleUpNum": 1, "scaleUpLimit": 1}},
  {"name": "specified delete 2 pod and replicas to 4 (step 3/3)", "set": [4, 0, 1, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {}},
  {"name": "update partition=3 (step 1/3)", "set": [5, 3, 1, 0], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-"], "expect": {"updateNum": 2, "updateMaxUnavailable": 1}},
  {"name": "update partition=3 (step 2/3)", "set": [5, 3, 1, 0], "pods": ["n:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-"], "expect": {"updateNum": 1, "updateMaxUnavailable": 1}},
  {"name": "update partition=3 (step 3/3)", "set": [5, 3, 1, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-"], "expect": {}},
  {"name": "rollback partition=4 (step 1/3)", "set": [5, 4, 2, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "o:Normal:R-"], "expect": {"updateNum": -3, "updateMaxUnavailable": 2}},
  {"name": "rollback partition=4 (step 2/3)", "set": [5, 4, 2, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-"], "expect": {"updateNum": -1, "updateMaxUnavailable": 2}},
  {"name": "rollback partition=4 (step 3/3)", "set": [5, 4, 2, 0], "pods": ["n:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-"], "expect": {}},
  {"name": "specified delete with maxSurge (step 1/4)", "set": [5, 0, 0, 1], "pods": ["n:Normal:RD", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"scaleUpNum": 1, "useSurge": 1, "scaleUpLimit": 1}},
  {"name": "specified delete with maxSurge (step 2/4)", "set": [5, 0, 0, 1], "pods": ["n:Normal:RD", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:--"], "expect": {"useSurge": 1}},
  {"name": "specified delete with maxSurge (step 3/4)", "set": [5, 0, 0, 1], "pods": ["n:Normal:RD", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"deleteReadyLimit": 1, "useSurge": 1}},
  {"name": "specified delete with maxSurge (step 4/4)", "set": [5, 0, 0, 1], "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {}},
  {"name": "update in-place partition=3 with maxSurge (step 1/4)", "set": [5, 3, 1, 1], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-"], "expect": {"scaleUpNum": 1, "useSurge": 1, "updateNum": 2, "updateMaxUnavailable": 1, "scaleUpLimit": 1}},
  {"name": "update in-place partition=3 with maxSurge (step 2/4)", "set": [5, 3, 1, 1], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:--"], "expect": {"useSurge": 1, "updateNum": 1, "updateMaxUnavailable": 2}},
  {"name": "update in-place partition=3 with maxSurge (step 3/4)", "set": [5, 3, 1, 1], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Updating:--", "n:Normal:--"], "expect": {"scaleDownNum": 1, "scaleDownNumOldRevision": 1, "deleteReadyLimit": 0}},
  {"name": "update in-place partition=3 with maxSurge (step 4/4)", "set": [5, 3, 1, 1], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:R-", "n:Normal:--"], "expect": {"scaleDownNum": 1, "scaleDownNumOldRevision": 1, "deleteReadyLimit": 1}},
  {"name": "update recreate partition=3 with maxSurge (step 1/7)", "set": [5, 3, 1, 1], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-"], "expect": {"scaleUpNum": 1, "useSurge": 1, "updateNum": 2, "updateMaxUnavailable": 1, "scaleUpLimit": 1}},
  {"name": "update recreate partition=3 with maxSurge (step 2/7)", "set": [5, 3, 1, 1], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:--"], "expect": {"useSurge": 1, "updateNum": 1, "updateMaxUnavailable": 2}},
  {"name": "update recreate partition=3 with maxSurge (step 3/7)", "set": [5, 3, 1, 1], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:RD", "n:Normal:--"], "expect": {"useSurge": 1, "useSurgeOldRevision": 1, "deleteReadyLimit": 1, "updateNum": 1, "updateMaxUnavailable": 2}},
  {"name": "update recreate partition=3 with maxSurge (step 4/7)", "set": [5, 3, 1, 1], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:--"], "expect": {"useSurge": 1, "scaleUpNum": 1, "updateNum": 1, "updateMaxUnavailable": 1, "scaleUpLimit": 1}},
  {"name": "update recreate partition=3 with maxSurge (step 5/7)", "set": [5, 3, 1, 1], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:--", "n:Normal:--"], "expect": {"scaleDownNum": 1, "scaleDownNumOldRevision": 1, "deleteReadyLimit": 0}},
  {"name": "update recreate partition=3 with maxSurge (step 6/7)", "set": [5, 3, 1, 1], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:R-", "n:Normal:--"], "expect": {"scaleDownNum": 1, "scaleDownNumOldRevision": 1, "deleteReadyLimit": 1}},
  {"name": "update recreate partition=3 with maxSurge (step 7/7)", "set": [5, 3, 1, 1], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {}},
  {"name": "update recreate partition=99% with maxUnavailable=3, maxSurge=2 (step 1/3)", "set": [5, "99%", 3, 2], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-"], "expect": {"scaleUpNum": 1, "useSurge": 1, "updateNum": 1, "updateMaxUnavailable": 3, "scaleUpLimit": 1}},
  {"name": "update recreate partition=99% with maxUnavailable=3, maxSurge=2 (step 2/3)", "set": [5, "99%", 3, 2], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:--"], "expect": {"scaleDownNum": 1, "scaleDownNumOldRevision": 1, "deleteReadyLimit": 3}},
  {"name": "update recreate partition=99% with maxUnavailable=3, maxSurge=2 (step 3/3)", "set": [5, "99%", 3, 2], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:--"], "expect": {}},
  {"name": "update recreate partition=99% with maxUnavailable=40%, maxSurge=30% (step 1/3)", "set": [5, "99%", "40%", "30%"], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-"], "expect": {"scaleUpNum": 1, "useSurge": 1, "updateNum": 1, "updateMaxUnavailable": 2, "scaleUpLimit": 1}},
  {"name": "update recreate partition=99% with maxUnavailable=40%, maxSurge=30% (step 2/3)", "set": [5, "99%", "40%", "30%"], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:--"], "expect": {"scaleDownNum": 1, "scaleDownNumOldRevision": 1, "deleteReadyLimit": 2}},
  {"name": "update recreate partition=99% with maxUnavailable=40%, maxSurge=30% (step 3/3)", "set": [5, "99%", "40%", "30%"], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:--"], "expect": {}},
  {"name": "update recreate partition=99% with maxUnavailable=30%, maxSurge=30% (step 1/3)", "set": [5, "99%", "30%", "30%"], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-"], "expect": {"scaleUpNum": 1, "useSurge": 1, "updateNum": 1, "updateMaxUnavailable": 1, "scaleUpLimit": 1}},
  {"name": "update recreate partition=99% with maxUnavailable=30%, maxSurge=30% (step 2/3)", "set": [5, "99%", "30%", "30%"], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:--"], "expect": {"scaleDownNum": 1, "scaleDownNumOldRevision": 1, "deleteReadyLimit": 1}},
  {"name": "update recreate partition=99% with maxUnavailable=30%, maxSurge=30% (step 3/3)", "set": [5, "99%", "30%", "30%"], "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:--"], "expect": {}},
  {"name": "revision consistent 1", "set": [5, 0, 1, 0], "revisionConsistent": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {}},
  {"name": "revision consistent 2", "set": [5, 3, 1, 0], "revisionConsistent": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {}},
  {"name": "revision consistent 3", "set": [5, 3, 1, 0], "revisionConsistent": true, "pods": ["o:Normal:R-", "o:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {}},
  {"name": "revision consistent 4", "set": [5, 1, 1, 0], "revisionConsistent": true, "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"updateNum": 2, "updateMaxUnavailable": 1}},
  {"name": "allow to update when fail to scale out normally", "set": [5, 1, 2, 0], "revisionConsistent": true, "pods": ["o:Normal:R-", "o:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"scaleUpNum": 1, "updateNum": 1, "updateMaxUnavailable": 1, "scaleUpLimit": 1}},
  {"name": "allow to update when fail to scale in normally", "set": [5, 1, 1, 0], "revisionConsistent": true, "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {"scaleDownNum": 1, "scaleDownNumOldRevision": 2, "deleteReadyLimit": 2, "updateNum": 1, "updateMaxUnavailable": 2}},
  {"name": "disable rollback feature-gate", "set": [5, 4, 1, 0], "rollbackGateOff": true, "pods": ["o:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {}},
  {"name": "increase replicas 0 to 5 with scale maxUnavailable = 2", "set": [5, 0, 1, 0], "scaleMaxUnavailable": 2, "pods": [], "expect": {"scaleUpNum": 5, "scaleUpLimit": 2}},
  {"name": "increase replicas 3 to 6 with scale maxUnavailable = 2, not ready pod = 1", "set": [6, 0, 1, 0], "scaleMaxUnavailable": 2, "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:--"], "expect": {"scaleUpNum": 3, "scaleUpLimit": 1}},
  {"name": "increase replicas 3 to 6 with scale maxUnavailable = 2, not ready pod = 2", "set": [6, 0, 1, 0], "scaleMaxUnavailable": 2, "pods": ["n:Normal:R-", "n:Normal:--", "n:Normal:--"], "expect": {"scaleUpNum": 3, "scaleUpLimit": 0}},
  {"name": "[scalingExcludePreparingDelete=false] specific delete a pod with lifecycle hook (step 1/4)", "set": [3, 0, 1, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:RD"], "expect": {"deleteReadyLimit": 1}},
  {"name": "[scalingExcludePreparingDelete=false] specific delete a pod with lifecycle hook (step 2/4)", "set": [3, 0, 1, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "n:PreparingDelete:RD"], "expect": {}},
  {"name": "[scalingExcludePreparingDelete=false] specific delete a pod with lifecycle hook (step 3/4)", "set": [3, 0, 1, 0], "pods": ["n:Normal:R-", "n:Normal:R-"], "expect": {"scaleUpNum": 1, "scaleUpLimit": 1}},
  {"name": "[scalingExcludePreparingDelete=false] specific delete a pod with lifecycle hook (step 4/4)", "set": [3, 0, 1, 0], "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:--"], "expect": {}},
  {"name": "[scalingExcludePreparingDelete=true] specific delete a pod with lifecycle hook (step 1/4)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:RD"], "expect": {"deleteReadyLimit": 1}},
  {"name": "[scalingExcludePreparingDelete=true] specific delete a pod with lifecycle hook (step 2/4)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:PreparingDelete:RD"], "expect": {"scaleUpNum": 1, "scaleUpLimit": 1}},
  {"name": "[scalingExcludePreparingDelete=true] specific delete a pod with lifecycle hook (step 3/4)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:PreparingDelete:RD", "n:Normal:--"], "expect": {}},
  {"name": "[scalingExcludePreparingDelete=true] specific delete a pod with lifecycle hook (step 4/4)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:PreparingDelete:RD", "n:Normal:--"], "expect": {}},
  {"name": "[scalingExcludePreparingDelete=true] specific delete a pod with lifecycle hook and then cancel (step 1/5)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:RD"], "expect": {"deleteReadyLimit": 1}},
  {"name": "[scalingExcludePreparingDelete=true] specific delete a pod with lifecycle hook and then cancel (step 2/5)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:PreparingDelete:RD"], "expect": {"scaleUpNum": 1, "scaleUpLimit": 1}},
  {"name": "[scalingExcludePreparingDelete=true] specific delete a pod with lifecycle hook and then cancel (step 3/5)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:PreparingDelete:RD", "n:Normal:--"], "expect": {}},
  {"name": "[scalingExcludePreparingDelete=true] specific delete a pod with lifecycle hook and then cancel (step 4/5)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-", "n:Normal:--"], "expect": {"scaleDownNum": 1, "deleteReadyLimit": 1}},
  {"name": "[scalingExcludePreparingDelete=true] specific delete a pod with lifecycle hook and then cancel (step 5/5)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {}},
  {"name": "[scalingExcludePreparingDelete=true] specific scale down with lifecycle hook, then scale up pods (step 1/6)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:R-"], "expect": {}},
  {"name": "[scalingExcludePreparingDelete=true] specific scale down with lifecycle hook, then scale up pods (step 2/6)", "set": [2, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:RD"], "expect": {"deleteReadyLimit": 2}},
  {"name": "[scalingExcludePreparingDelete=true] specific scale down with lifecycle hook, then scale up pods (step 3/6)", "set": [2, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:PreparingDelete:RD"], "expect": {}},
  {"name": "[scalingExcludePreparingDelete=true] specific scale down with lifecycle hook, then scale up pods (step 4/6)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:PreparingDelete:RD"], "expect": {"scaleUpNum": 1, "scaleUpLimit": 1}},
  {"name": "[scalingExcludePreparingDelete=true] specific scale down with lifecycle hook, then scale up pods (step 5/6)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:PreparingDelete:RD", "n:Normal:--"], "expect": {}},
  {"name": "[scalingExcludePreparingDelete=true] specific scale down with lifecycle hook, then scale up pods (step 6/6)", "set": [3, 0, 1, 0], "excludePreparingDelete": true, "pods": ["n:Normal:R-", "n:Normal:R-", "n:Normal:--"], "expect": {}},
  {"name": "[UpdateStrategyPaused=true] scale up pods with maxSurge=3,maxUnavailable=0", "set": [5, 0, 0, 3], "paused": true, "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-"], "expect": {"scaleUpNum": 2, "scaleUpLimit": 2, "updateNum": 3, "updateMaxUnavailable": -2}},
  {"name": "[UpdateStrategyPaused=true] scale down pods with maxSurge=3,maxUnavailable=0", "set": [3, 0, 0, 3], "paused": true, "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-"], "expect": {"scaleDownNum": 2, "scaleDownNumOldRevision": 5, "deleteReadyLimit": 2, "updateNum": 3, "updateMaxUnavailable": 2}},
  {"name": "[UpdateStrategyPaused=true] create 0 newRevision pods with maxSurge=3,maxUnavailable=0", "set": [5, 0, 0, 3], "paused": true, "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:--", "n:Normal:--", "n:Normal:--"], "expect": {"scaleDownNum": 3, "scaleDownNumOldRevision": 5, "updateNum": 2, "updateMaxUnavailable": 3}},
  {"name": "[UpdateStrategyPaused=true] create 0 newRevision pods with maxSurge=3,maxUnavailable=0", "set": [5, 2, 0, 3], "paused": true, "pods": ["o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "o:Normal:R-", "n:Normal:--", "n:Normal:--", "n:Normal:--"], "expect": {"scaleDownNum": 3, "scaleDownNumOldRevision": 3}}
];

function pod(spec: string): DiffPod {
  const [rev, state, flags] = spec.split(':');
  const ready = flags[0] === 'R';
  return { updated: rev === 'n', preparingDelete: state === 'PreparingDelete', specifiedDelete: flags[1] === 'D', available: ready && state === 'Normal' };
}

for (const row of ROWS) {
  test(`TestCalculateDiffsWithExpectation row "${row.name}" (pkg/controller/cloneset/sync/cloneset_sync_utils_test.go)`, () => {
    const [replicas, partition, maxUnavailable, maxSurge] = row.set;
    const surge = row.paused ? 0 : scaledValueFromIntOrPercent(maxSurge, replicas, true);
    const got = calculateCloneSetDiffs({
      replicas,
      partition: explainCloneSetPartition(partition, replicas).partitionReplicas,
      maxSurge: surge,
      maxUnavailable: scaledValueFromIntOrPercent(maxUnavailable, replicas, surge === 0),
      scaleMaxUnavailable: row.scaleMaxUnavailable === undefined ? undefined : scaledValueFromIntOrPercent(row.scaleMaxUnavailable, replicas, true),
      paused: row.paused === true,
      excludePreparingDelete: row.excludePreparingDelete === true,
      revisionConsistent: row.revisionConsistent === true,
      partitionRollback: row.rollbackGateOff !== true,
      pods: row.pods.map(pod),
    });
    // Go's zero values: a field written as 0 in the row equals a missing one
    const want = Object.fromEntries(Object.entries(row.expect).filter(([, v]) => v !== 0));
    assert.deepEqual(got, want);
  });
}

// TestCalculateUpdateCount (pkg/controller/cloneset/sync/cloneset_update_test.go): how many of the old
// pods limitUpdateIndexes lets update. Strategy [partition, maxUnavailable, maxSurge] (defaults 0, "20%", 0);
// pods "R" ready, "-" not; the row that needs CloneSetPartitionRollback (updateNum < 0) is left out.
const UPDATE_COUNT_ROWS: Array<[string, [number, number | string, number], number, number[], string, number]> = [
  ['#0 all ready', [0, '20%', 0], 3, [0, 1, 2], 'RRR', 1],
  ['#1 one old pod not ready', [0, '20%', 0], 3, [0, 1, 2], 'R-R', 0],
  ['#2 first old pod not ready', [0, '20%', 0], 3, [0, 1, 2], '-RR', 1],
  ['#3 two of ten not ready', [0, '20%', 0], 10, [0, 1, 2, 3, 4, 5, 6, 7, 8], '-RRRRRRR-R', 1],
  ['#4 partition 2, maxUnavailable 3', [2, 3, 0], 3, [0, 1], '-RR', 0],
  ['#5 partition 2, maxUnavailable 50%', [2, '50%', 0], 8, [0, 1, 2, 3, 4, 5, 6], '-R-RRRR-', 3],
  ['#6 old revision all unavailable, maxUnavailable 2', [0, 2, 0], 5, [0, 1, 2, 3, 4], '-----', 2],
  ['#7 old revision all unavailable, 2 updating', [0, 2, 0], 5, [0, 1, 2], '-----', 0],
  ['#8 1 updated and 1 updating', [0, 2, 0], 5, [0, 1, 2], '---R-', 1],
  ['#9 maxSurge 1, 1 creating', [0, 2, 1], 5, [0, 1, 2, 3, 4], '------', 2],
  ['#10 maxSurge 1, 1 updated and 1 updating', [0, 2, 1], 5, [0, 1, 2, 3], '----R-', 2],
  ['#11 maxSurge 1, 1 updated and 2 updating', [0, 2, 1], 5, [0, 1, 2], '----R-', 1],
  ['#12 maxSurge 1, 3 updating', [0, 2, 1], 5, [0, 1, 2], '------', 0],
  ['#14 maxUnavailable 0, maxSurge 2, usedSurge 1', [0, 0, 2], 4, [0, 1], 'RRRRR', 1],
  ['#15 maxUnavailable 0, maxSurge 2, usedSurge 2', [0, 0, 2], 4, [0, 1, 2, 3], 'RRRRRR', 2],
];

for (const [name, [partition, maxUnavailable, maxSurge], replicas, oldIndexes, ready, want] of UPDATE_COUNT_ROWS) {
  test(`TestCalculateUpdateCount row ${name} (pkg/controller/cloneset/sync/cloneset_update_test.go)`, () => {
    const pods = [...ready].map((r, i) => ({ updated: !oldIndexes.includes(i), available: r === 'R', preparingDelete: false, specifiedDelete: false }));
    const surge = scaledValueFromIntOrPercent(maxSurge, replicas, true);
    const diffs = calculateCloneSetDiffs({
      replicas,
      partition,
      maxSurge: surge,
      maxUnavailable: scaledValueFromIntOrPercent(maxUnavailable, replicas, surge === 0),
      paused: false,
      excludePreparingDelete: false,
      revisionConsistent: false,
      partitionRollback: true,
      pods,
    });
    const waiting = (diffs.updateNum ?? 0) > 0 ? oldIndexes.map((i) => pods[i]) : [];
    assert.equal(limitUpdates(waiting, pods, diffs).length, want);
  });
}
