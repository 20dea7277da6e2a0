"""What the model-based evacuation test reads and checks: the records in
the database and the disk files of the ``local`` driver.

A :class:`Snapshot` holds the instances, migrations and compute nodes
(read with SQL, not through the API) and every instance directory of
every host (``instances/<uuid>/disk`` and the copy a cold move keeps
aside, ``instances/<uuid>_resize/disk``). It is consistent: the records
are read before and after the files and the read is repeated until both
agree, so that a file is never judged against records that changed
while it was looked at.

Two sets of invariants: :func:`safety_violations` must hold at every
point, even with operations in flight, hosts frozen and agents dead;
:func:`strict_violations` (the issue's wording) once every agent has
restarted and the system has settled.
"""

import dataclasses
import json
from pathlib import Path
import time

import sqlalchemy as sa

RESIZE_SUFFIX = '_resize'
ERROR, BUILDING, RESIZED = 'error', 'building', 'resized'
SHELVED, OFFLOADED = 'shelved', 'shelved_offloaded'
# Task states of a cold move during which the source's copy is aside.
SENDING = ('resize_migrating', 'resize_migrated', 'resize_finish')
# Migration statuses that say the instance now lives on the destination.
MOVED = ('done', 'finished', 'confirming', 'confirmed')
IN_FLIGHT = (
    'accepted',
    'pre-migrating',
    'migrating',
    'post-migrating',
    'confirming',
    'reverting',
)
# Evacuation statuses whose source has not cleaned up yet.
UNCLEANED = ('accepted', 'pre-migrating', 'done')


@dataclasses.dataclass(frozen=True)
class Instance:
    uuid: str
    host: str | None
    node: str | None
    compute_id: int | None
    vm_state: str
    task_state: str | None
    vcpus: int
    # The snapshot a shelve recorded (system_metadata shelved_image_id).
    snapshot: str | None = None


@dataclasses.dataclass(frozen=True)
class Migration:
    id: int
    instance_uuid: str
    migration_type: str
    status: str
    source_compute: str | None
    dest_compute: str | None
    dest_node: str | None
    dest_compute_id: int | None


@dataclasses.dataclass(frozen=True)
class Node:
    id: int
    host: str
    hypervisor_hostname: str
    deleted: bool


@dataclasses.dataclass
class Records:
    instances: dict[str, Instance]  # live (not deleted) only
    deleted: set[str]  # uuids of deleted instances
    migrations: list[Migration]  # by id
    nodes: dict[int, Node]
    images: frozenset[str] = frozenset()  # ids in the image catalog
    # uuid -> id of the latest migration before the instance's latest
    # shelve (a shelve and its unshelve place it without a migration).
    shelved_after: dict[str, int] = dataclasses.field(default_factory=dict)

    def migrations_of(self, uuid: str) -> list[Migration]:
        return [m for m in self.migrations if m.instance_uuid == uuid]


@dataclasses.dataclass
class Files:
    disks: dict[str, set[str]]  # uuid -> hosts with <uuid>/disk
    asides: dict[str, set[str]]  # uuid -> hosts with <uuid>_resize
    corrupt: list[str]  # disk files not naming their uuid


@dataclasses.dataclass
class Snapshot:
    records: Records
    files: Files

    def copies(self, uuid: str) -> set[str]:
        """Hosts holding the instance's disk, in place or aside."""
        return self.files.disks.get(uuid, set()) | self.files.asides.get(
            uuid, set()
        )

    def has_disk(self, uuid: str, host: str | None) -> bool:
        return host in self.files.disks.get(uuid, set())

    def has_aside(self, uuid: str, host: str | None) -> bool:
        return host in self.files.asides.get(uuid, set())


# -- reading ---


def read_records(engine: sa.engine.Engine) -> Records:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                'SELECT uuid, host, node, compute_id, vm_state, task_state, '
                'vcpus, deleted, system_metadata FROM instances'
            )
        ).all()
        images = conn.execute(sa.text('SELECT id FROM images')).all()
        shelves = conn.execute(
            sa.text(
                'SELECT a.instance_uuid, max(a.start_time) AS at FROM '
                "instance_actions a WHERE a.action = 'shelve' GROUP BY "
                'a.instance_uuid'
            )
        ).all()
        moved_at = conn.execute(
            sa.text(
                'SELECT id, instance_uuid, created_at FROM migrations '
                'WHERE deleted = 0'
            )
        ).all()
        migrations = conn.execute(
            sa.text(
                'SELECT id, instance_uuid, migration_type, status, '
                'source_compute, dest_compute, dest_node, dest_compute_id '
                'FROM migrations WHERE deleted = 0 ORDER BY id'
            )
        ).all()
        nodes = conn.execute(
            sa.text(
                'SELECT id, host, hypervisor_hostname, deleted '
                'FROM compute_nodes'
            )
        ).all()
    live = {
        r.uuid: Instance(
            r.uuid,
            r.host,
            r.node,
            r.compute_id,
            r.vm_state,
            r.task_state,
            r.vcpus,
            _snapshot(r.system_metadata),
        )
        for r in rows
        if not r.deleted
    }
    return Records(
        instances=live,
        deleted={r.uuid for r in rows if r.deleted},
        migrations=[Migration(*m) for m in migrations],
        nodes={
            n.id: Node(n.id, n.host, n.hypervisor_hostname, bool(n.deleted))
            for n in nodes
        },
        images=frozenset(i.id for i in images),
        shelved_after=_shelved_after(shelves, moved_at),
    )


def _shelved_after(shelves: list, moved_at: list) -> dict[str, int]:
    """uuid -> the newest migration id that a later shelve overrides
    (0: every migration is older than the shelve)."""
    shelved = {row.instance_uuid: row.at for row in shelves if row.at}
    found = dict.fromkeys(shelved, 0)
    for row in moved_at:
        at = shelved.get(row.instance_uuid)
        if at is not None and row.created_at <= at:
            found[row.instance_uuid] = max(found[row.instance_uuid], row.id)
    return found


def _snapshot(system_metadata: str | None) -> str | None:
    try:
        return json.loads(system_metadata or '{}').get('shelved_image_id')
    except ValueError:
        return None


def in_snapshot(inst: Instance) -> bool:
    """Whether the instance's content is (or may at this point be) only
    in its shelve snapshot: offloaded, or being offloaded (its disk
    removed before the record says so)."""
    return inst.vm_state == OFFLOADED or (
        inst.vm_state == SHELVED and inst.task_state == 'shelving_offloading'
    )


def _names_its_instance(disk: Path, uuid: str) -> bool:
    """The local driver writes a JSON header naming the instance."""
    try:
        with open(disk, 'rb') as handle:
            head = handle.read(512).split(b'\0', 1)[0]
        return json.loads(head).get('instance') == uuid
    except (OSError, ValueError, AttributeError):
        return False


def read_files(state_paths: dict[str, Path]) -> Files:
    files = Files({}, {}, [])
    for host, state_path in state_paths.items():
        try:
            entries = sorted((state_path / 'instances').iterdir())
        except FileNotFoundError:
            continue
        for entry in entries:
            disk = entry / 'disk'
            if not disk.is_file():
                continue
            aside = entry.name.endswith(RESIZE_SUFFIX)
            uuid = entry.name.removesuffix(RESIZE_SUFFIX)
            where = files.asides if aside else files.disks
            where.setdefault(uuid, set()).add(host)
            if not _names_its_instance(disk, uuid) and disk.exists():
                files.corrupt.append(f'{host}:{entry.name}/disk')
    return files


def snapshot(
    engine: sa.engine.Engine, state_paths: dict[str, Path], attempts: int = 10
) -> Snapshot:
    """Records read before and after the files, until they agree."""
    before = read_records(engine)
    for _ in range(attempts):
        files = read_files(state_paths)
        after = read_records(engine)
        if after == before:
            break
        before = after
        time.sleep(0.1)
    return Snapshot(after, files)


# -- invariants that hold at every point ---


def _expected_here(snap: Snapshot, inst: Instance) -> bool:
    """Whether the host the record names holds the instance's disk, as
    far as the instance's task lets it be elsewhere for a moment."""
    if snap.has_disk(inst.uuid, inst.host):
        return True
    if inst.task_state in SENDING:  # the source keeps it aside
        return snap.has_aside(inst.uuid, inst.host)
    if inst.task_state == 'resize_reverting':
        # The destination (host) destroys its copy, then the source
        # restores the one it kept aside.
        sources = {
            m.source_compute
            for m in snap.records.migrations_of(inst.uuid)
            if m.status == 'reverting'
        }
        return any(
            snap.has_aside(inst.uuid, s) or snap.has_disk(inst.uuid, s)
            for s in sources
        )
    return False


def _at_rest(inst: Instance) -> bool:
    """Not ERROR, built, and not being deleted."""
    return (
        inst.vm_state not in (ERROR, BUILDING)
        and inst.task_state != 'deleting'
    )


def copy_violations(snap: Snapshot) -> list[str]:
    """Every live instance that is not in ERROR, building or being
    deleted has an intact disk somewhere, and on the host its record
    names (aside there while a cold move sends it)."""
    found = []
    for inst in snap.records.instances.values():
        if not _at_rest(inst):
            continue
        if in_snapshot(inst):
            if inst.snapshot not in snap.records.images:
                found.append(
                    f'LOST {inst.uuid}: shelved with no snapshot '
                    f'image {inst.snapshot} ({describe(snap, inst)})'
                )
            continue
        if not snap.copies(inst.uuid):
            found.append(
                f'LOST {inst.uuid}: no disk file on any host '
                f'({describe(snap, inst)})'
            )
        elif not _expected_here(snap, inst):
            found.append(
                f'NOT ON ITS HOST {inst.uuid}: the record names '
                f'{inst.host}, which has no disk of it '
                f'({describe(snap, inst)})'
            )
    found += [f'CORRUPT disk file {c}' for c in snap.files.corrupt]
    return found


def moved_violations(snap: Snapshot, settled: bool = False) -> list[str]:
    """No record says an instance moved without a copy where it moved:
    for the latest migration of an instance without a task, ``done``,
    ``finished``, ``confirming``, ``confirmed`` (and ``completed`` once
    claimed) place it on the destination with its disk there;
    ``reverted`` places it on the source with its disk."""
    found = []
    for inst in snap.records.instances.values():
        migrations = snap.records.migrations_of(inst.uuid)
        if (
            inst.vm_state == ERROR
            or not migrations
            or (inst.task_state is not None and not settled)
        ):
            continue
        last = migrations[-1]
        if in_snapshot(inst) or (
            inst.uuid in snap.records.shelved_after
            and last.id <= snap.records.shelved_after[inst.uuid]
        ):
            # Shelved since that move: offloaded (its content is in its
            # snapshot) or unshelved wherever the scheduler chose.
            continue
        moved = last.status in MOVED or (
            last.status == 'completed' and last.dest_compute_id is not None
        )
        where = (
            last.dest_compute
            if moved
            else last.source_compute
            if last.status == 'reverted'
            else None
        )
        if where is None:
            continue
        if inst.host != where or not snap.has_disk(inst.uuid, where):
            found.append(
                f'MOVED WITHOUT A COPY {inst.uuid}: {last.migration_type} '
                f'{last.id} is {last.status} ({last.source_compute} -> '
                f'{last.dest_compute}) but the record places it on '
                f'{inst.host} ({describe(snap, inst)})'
            )
    return found


def link_violations(snap: Snapshot) -> list[str]:
    """Every (host, node, compute_id) of a live instance, and every
    (dest_compute, dest_node, dest_compute_id) of a migration, names one
    live compute node of that host with that hypervisor name."""
    found = []
    nodes = snap.records.nodes
    for inst in snap.records.instances.values():
        if inst.host is None and inst.compute_id is None:
            continue
        if inst.vm_state == OFFLOADED and inst.task_state is None:
            found.append(
                f'OFFLOADED BUT PLACED {inst.uuid}: host '
                f'{inst.host} node {inst.node} compute_id '
                f'{inst.compute_id}'
            )
            continue
        node = nodes.get(inst.compute_id or -1)
        if (
            node is None
            or node.deleted
            or (node.host, node.hypervisor_hostname) != (inst.host, inst.node)
        ):
            found.append(
                f'BAD LINK instance {inst.uuid}: host {inst.host}'
                f' node {inst.node} compute_id {inst.compute_id} '
                f'-> {node}'
            )
    for mig in snap.records.migrations:
        node = nodes.get(mig.dest_compute_id or -1)
        if mig.dest_compute_id is not None and (
            node is None
            or (node.host, node.hypervisor_hostname)
            != (mig.dest_compute, mig.dest_node)
        ):
            found.append(
                f'BAD LINK migration {mig.id}: {mig.dest_compute}'
                f'/{mig.dest_node} dest_compute_id '
                f'{mig.dest_compute_id} -> {node}'
            )
    return found


def safety_violations(snap: Snapshot) -> list[str]:
    return (
        copy_violations(snap) + moved_violations(snap) + link_violations(snap)
    )


# -- invariants once everything restarted and settled ---


def _allowed_hosts(snap: Snapshot, inst: Instance) -> tuple[set, set]:
    """(hosts that may hold its disk, hosts that may hold it aside)."""
    migrations = snap.records.migrations_of(inst.uuid)
    if inst.vm_state == OFFLOADED:
        return set(), set()
    if inst.vm_state == ERROR:
        named = (
            {inst.host}
            | {m.source_compute for m in migrations}
            | {m.dest_compute for m in migrations}
        )
        return named, named
    aside = set()
    if (
        inst.vm_state == RESIZED
        and migrations
        and (migrations[-1].status == 'finished')
    ):
        aside = {migrations[-1].source_compute}
    return {inst.host}, aside


def strict_violations(snap: Snapshot) -> list[str]:
    """The issue's invariants, once settled: every live instance not in
    ERROR has exactly one disk, on the host its record names (and a copy
    aside only on the source of its finished move); no disk file exists
    for an instance that no record places there (deleted instances'
    disks are gone); no record says an instance moved without a copy;
    every link names one compute node of that host; no task is left."""
    found = []
    records = snap.records
    for inst in records.instances.values():
        if inst.task_state is not None:
            found.append(
                f'STUCK {inst.uuid}: task_state {inst.task_state}'
                f' after settling ({describe(snap, inst)})'
            )
        if inst.vm_state == OFFLOADED and inst.snapshot not in records.images:
            found.append(
                f'LOST {inst.uuid}: offloaded with no snapshot '
                f'image {inst.snapshot}'
            )
        expected = set() if inst.vm_state == OFFLOADED else {inst.host}
        if (
            inst.vm_state != ERROR
            and snap.files.disks.get(inst.uuid, set()) != expected
        ):
            found.append(
                f'NOT EXACTLY ONE COPY {inst.uuid}: {describe(snap, inst)}'
            )
    for uuid in set(snap.files.disks) | set(snap.files.asides):
        known = records.instances.get(uuid)
        disks = snap.files.disks.get(uuid, set())
        asides = snap.files.asides.get(uuid, set())
        if known is None:
            what = 'deleted' if uuid in records.deleted else 'unknown'
            found.append(
                f'STRAY COPY of {what} instance {uuid}: disks on '
                f'{sorted(disks)}, aside on {sorted(asides)}'
            )
            continue
        may_disk, may_aside = _allowed_hosts(snap, known)
        if disks - may_disk or asides - may_aside:
            found.append(f'STRAY COPY {uuid}: {describe(snap, known)}')
    for mig in records.migrations:
        if mig.status in IN_FLIGHT or (
            mig.migration_type == 'evacuation' and mig.status in UNCLEANED
        ):
            found.append(
                f'UNFINISHED {mig.migration_type} {mig.id} of '
                f'{mig.instance_uuid}: {mig.status}'
            )
    return (
        found
        + moved_violations(snap, settled=True)
        + link_violations(snap)
        + [f'CORRUPT disk file {c}' for c in snap.files.corrupt]
    )


def describe(snap: Snapshot, inst: Instance) -> str:
    migrations = ', '.join(
        f'{m.migration_type} {m.id} {m.status} {m.source_compute}->'
        f'{m.dest_compute}'
        for m in snap.records.migrations_of(inst.uuid)
    )
    return (
        f'record: {inst.vm_state}/{inst.task_state} on {inst.host}; '
        f'disks on {sorted(snap.files.disks.get(inst.uuid, set()))}, '
        f'aside on {sorted(snap.files.asides.get(inst.uuid, set()))}; '
        f'migrations: {migrations or "none"}'
    )


def summary(snap: Snapshot) -> str:
    """Every instance with its records and copies, for a report."""
    lines = [
        f'  {uuid}: {describe(snap, inst)}'
        for uuid, inst in sorted(snap.records.instances.items())
    ]
    stray = sorted(
        (set(snap.files.disks) | set(snap.files.asides))
        - set(snap.records.instances)
    )
    lines += [
        f'  {uuid} (not live): disks on '
        f'{sorted(snap.files.disks.get(uuid, set()))}, aside on '
        f'{sorted(snap.files.asides.get(uuid, set()))}'
        for uuid in stray
    ]
    return '\n'.join(lines) or '  (no instances)'
