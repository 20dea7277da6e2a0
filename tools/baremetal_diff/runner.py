"""Running the sequences against both sides, request by request."""

import dataclasses
import fnmatch
import json
from typing import Any

import yaml

from baremetal_diff import compare
from baremetal_diff import scenarios

_NOT_SENT = '<not sent>'

#: Headers whose value is compared when the request names a version.
_VERSION_HEADER = 'x-openstack-ironic-api-version'


@dataclasses.dataclass
class Result:
    """One request, sent to both sides."""

    sequence: str
    resource: str
    step: str
    method: str
    path: str
    version: str | None
    body: Any
    statuses: tuple[int, int]
    difference: compare.Difference
    notes: list[str] = dataclasses.field(default_factory=list)
    known: str | None = None
    #: A step that prepares the sequence (creates its node ...).
    setup: bool = False
    #: Error texts (upstream, ironic_lite), when an answer is an error.
    messages: tuple[str | None, str | None] = (None, None)
    #: Parts of the difference a known-differences entry accepted.
    accepted: list[str] = dataclasses.field(default_factory=list)
    reasons: list[str] = dataclasses.field(default_factory=list)

    @property
    def skipped(self) -> bool:
        """Not sent to either side (an earlier step failed on both)."""
        return self.statuses == (0, 0)

    @property
    def differs(self) -> bool:
        if self.skipped:
            return False
        return bool(self.difference or self.notes or self.accepted)

    @property
    def key(self) -> str:
        return f'{self.sequence}/{self.step}'

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out['difference'] = self.difference.to_json()
        out['differs'] = self.differs
        out['skipped'] = self.skipped
        return out


@dataclasses.dataclass
class Known:
    """An accepted difference: ``match`` is a glob over
    ``<sequence>/<step>``; ``ignore`` globs over the differing key and
    value paths (``http-status`` for the status) limit it to those parts,
    without ``ignore`` the whole difference of the request is
    accepted."""

    match: str
    reason: str
    ignore: list[str] = dataclasses.field(default_factory=list)

    def applies(self, result: Result) -> bool:
        return fnmatch.fnmatchcase(result.key, self.match)

    def _hit(self, path: str) -> bool:
        return any(fnmatch.fnmatchcase(path, g) for g in self.ignore)

    def accept(self, result: Result) -> None:
        """Move the parts this entry covers to ``result.accepted``."""
        diff = result.difference
        if not self.ignore:
            result.known = self.reason
            return
        before = len(result.accepted)
        for name in ('only_upstream', 'only_lite'):
            paths = getattr(diff, name)
            result.accepted += [p for p in paths if self._hit(p)]
            setattr(diff, name, [p for p in paths if not self._hit(p)])
        for path in [p for p in diff.values if self._hit(p)]:
            result.accepted.append(path)
            del diff.values[path]
        if diff.status and self._hit('http-status'):
            result.accepted.append('status')
            diff.status = None
        if len(result.accepted) > before:
            result.reasons.append(self.reason)
        if not diff and not result.notes:
            result.known = self.reason


def load_known(path: str | None) -> list[Known]:
    if not path:
        return []
    with open(path) as handle:
        data = yaml.safe_load(handle) or {}
    entries = data.get('differences') or []
    known = []
    for entry in entries:
        if not entry.get('match') or not entry.get('reason'):
            raise scenarios.ScenarioError(
                f'{path}: every known difference needs match and reason'
            )
        known.append(
            Known(
                entry['match'],
                entry['reason'],
                list(entry.get('ignore') or []),
            )
        )
    return known


def _send(
    side: scenarios.Side,
    step: dict[str, Any],
    version: str | None,
    timeout: float,
) -> tuple[compare.Shape, list[str]]:
    """Send one step to one side: its shape and notes (skips, waits)."""
    try:
        path = scenarios.substitute(step['path'], side.variables)
        body = scenarios.substitute(step.get('body'), side.variables)
    except KeyError as exc:
        return (
            compare.Shape(status=0, body_kind=_NOT_SENT),
            [f'{side.label}: not sent, ${{{exc.args[0]}}} is unset'],
        )
    hv = scenarios.header_version(version, side)
    resp = side.request(step.get('method', 'GET'), path, hv, body)
    decoded = compare.decode_body(resp.raw, resp.headers.get('Content-Type'))
    for name, key in (step.get('save') or {}).items():
        value = scenarios.dig(decoded, key)
        if value is not None and resp.status < 400:
            side.variables[name] = value
    compared = (
        [_VERSION_HEADER]
        if version not in (None, 'none', 'max', 'latest')
        else []
    )
    shape = compare.shape_of(resp.status, decoded, resp.headers, compared)
    notes = []
    if resp.status < 400:
        error = scenarios.wait_step(side, step, version, timeout)
        if error:
            notes.append(f'{side.label}: {error}')
    return shape, notes


def run_sequence(
    seq: dict[str, Any],
    sides: list[scenarios.Side],
    run_id: str,
    timeout: float,
) -> list[Result]:
    """Run one sequence; ``run_id`` (``${run}``) should be unique per
    sequence run, so that names never collide with what an earlier
    sequence left behind."""
    seq_version = seq.get('version')
    for side in sides:
        side.variables = {
            'run': run_id,
            'RUN': run_id.upper(),
            # Three octets for unique MAC addresses.
            'mac': ':'.join(run_id[i : i + 2] for i in (0, 2, 4)),
            'version': str(seq_version or side.max_version),
        }
    results = []
    for index, step in enumerate(seq['steps'], 1):
        version = step.get('version', seq_version)
        version = None if version is None else str(version)
        name = (
            step.get('name') or f'{step.get("method", "GET")} {step["path"]}'
        )
        shapes, notes = [], []
        for side in sides:
            shape, side_notes = _send(side, step, version, timeout)
            shapes.append(shape)
            notes += side_notes
        if all(s.body_kind == _NOT_SENT for s in shapes):
            # The same earlier step failed on both sides: consistent.
            notes = [f'not sent on either side ({notes[0].split(", ")[1]})']
        results.append(
            Result(
                sequence=seq['name'],
                resource=seq['resource'],
                step=f'{index:02d} {name}',
                method=step.get('method', 'GET'),
                path=step['path'],
                version=version,
                body=step.get('body'),
                statuses=(shapes[0].status, shapes[1].status),
                messages=(shapes[0].message, shapes[1].message),
                setup=bool(step.get('setup')),
                difference=compare.compare(shapes[0], shapes[1]),
                notes=notes,
            )
        )
    return results


def apply_known(results: list[Result], known: list[Known]) -> None:
    for result in results:
        if not result.differs:
            continue
        for entry in known:
            if entry.applies(result):
                entry.accept(result)
                if result.known:
                    break


def write_json(path: str, results: list[Result], meta: dict[str, Any]) -> None:
    with open(path, 'w') as handle:
        json.dump(
            {'meta': meta, 'results': [r.to_json() for r in results]},
            handle,
            indent=1,
            default=str,
        )
