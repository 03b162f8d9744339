// Prints `true` when a push to main changed the infrastructure (so the whole stack must be
// deployed) and `false` when only function code can have changed (so per-function deploys
// of the zips scripts/changed-functions.mjs finds are enough). It compares the pushed HEAD
// with the commit the push started from (`github.event.before`), not with HEAD~1: a push
// of several commits whose infrastructure change is not the last one is still a change.
//
//   node scripts/infrastructure-changed.mjs <before>
//
// When that base tells nothing (no base; all zeros, as for the push that creates a branch;
// a commit not in this clone's history, as after a force-push; or one HEAD does not
// descend from), what is deployed is unknown, and the answer is `true`: deploy everything.
import { execFileSync } from 'node:child_process';

/** Paths whose change needs a full deploy (CloudFormation, IAM roles, packaging). */
const INFRASTRUCTURE = ['serverless.yml', '.serverless-plugins', 'package-lock.json', 'scripts/package.mjs'];

/** Whether `git ...args` succeeds (exit 0); any other exit is `false`. */
function succeeds(args) {
  try {
    execFileSync('git', args, { stdio: 'ignore' });
    return true;
  } catch (error) {
    if (typeof error.status === 'number') return false;
    throw error;
  }
}

/** Why the infrastructure counts as changed since `before`, or undefined when it did not change. */
function infrastructureChange(before) {
  if (!before || /^0+$/.test(before)) return 'no earlier commit (a new branch)';
  if (!/^[0-9a-f]{7,64}$/i.test(before)) return `not a commit id: ${before}`;
  if (!succeeds(['cat-file', '-e', `${before}^{commit}`])) return `${before} is not in this clone (a force-push?)`;
  if (!succeeds(['merge-base', '--is-ancestor', before, 'HEAD'])) return `HEAD does not descend from ${before} (a force-push)`;
  if (!succeeds(['diff', '--quiet', before, 'HEAD', '--', ...INFRASTRUCTURE]))
    return `${INFRASTRUCTURE.join(', ')} changed since ${before}`;
  return undefined;
}

const reason = infrastructureChange(process.argv[2]);
console.error(reason ? `Full deploy: ${reason}.` : `No infrastructure change since ${process.argv[2]}.`);
console.log(reason ? 'true' : 'false');
