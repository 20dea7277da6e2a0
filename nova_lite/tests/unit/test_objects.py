"""nova_lite versioned objects: fingerprints, the node link, indirection."""

import threading
import uuid

import pytest

from lite_common import context as lite_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import base
from nova_lite.objects import compute_node as compute_node_obj
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import service as service_obj

# Every object, including those this module does not import itself.
objects.register_all()

# Change a field or a remotable method's signature: bump the object's
# VERSION and update its entry here (the hash changes with the fields and
# remotable methods; the version must change with it).
# The hashes cover the remotable methods' signatures with their
# annotations: typing the contexts (RequestContext for Any) changed them
# all without a change on the wire, so no VERSION moved.
EXPECTED_FINGERPRINTS = {
    'ComputeNode': '1.3-8ef3afcb5a3d865ac8d1f9aecab07a20',
    'ComputeNodeList': '1.0-5ee18428e014844f2271edf8b79f9638',
    'Flavor': '1.0-037e98b0d32c5d9052bc443cbddbb289',
    'Instance': '1.7-a65ca430f791f631e660b29d3fc624c0',
    'InstanceActionEvent': '1.2-927c001144e8060f8a06deb5eb285175',
    'InstanceList': '1.4-5bd2aa11f4585186aad0e9da89d180c4',
    'Migration': '1.5-db1b68c146b0247f9d043287359313cd',
    'MigrationList': '1.3-f90e749b71bf1e413c8a21fe618e9f53',
    'Service': '1.1-a34c0e2bbcebffb1ec1b3949637cfcf5',
    'ServiceList': '1.0-08c832880b27eecbdf4493f091f9e0de',
}


def _checker():
    # oslo_versionedobjects.fixture needs the 'fixtures' package.
    from oslo_versionedobjects import fixture

    return fixture.ObjectVersionChecker(
        base.NovaLiteObjectRegistry.obj_classes()
    )


def test_object_fingerprints():
    expected, actual = _checker().test_hashes(EXPECTED_FINGERPRINTS)
    assert expected == actual, (
        'Objects changed; bump their VERSION and update '
        'EXPECTED_FINGERPRINTS: %s' % sorted(actual)
    )
    assert set(_checker().get_hashes()) == set(EXPECTED_FINGERPRINTS)


def test_fingerprint_changes_with_fields():
    """The check above can fail: a new field changes the hash."""
    from oslo_versionedobjects import fields as ovo_fields

    classes = dict(base.NovaLiteObjectRegistry.obj_classes())
    original = classes['Service'][0]

    class Changed(original):
        fields = dict(original.fields, extra=ovo_fields.StringField())

    from oslo_versionedobjects import fixture

    checker = fixture.ObjectVersionChecker({'Service': [Changed]})
    expected, actual = checker.test_hashes(
        {'Service': EXPECTED_FINGERPRINTS['Service']}
    )
    assert set(actual) == {'Service'}
    assert actual['Service'].startswith('1.1-')
    assert actual['Service'] != EXPECTED_FINGERPRINTS['Service']


# -- database-backed tests --------------------------------------------------


def _service(ctx, host='host1'):
    svc = service_obj.Service(
        ctx, host=host, binary='nova-compute', topic='compute'
    )
    svc.create()
    return svc


def _node(ctx, svc, name='node1'):
    node = compute_node_obj.ComputeNode(
        ctx,
        uuid=str(uuid.uuid4()),
        service_id=svc.id,
        host=svc.host,
        hypervisor_hostname=name,
        hypervisor_type='fake',
        vcpus=4,
        memory_mb=4096,
        local_gb=40,
    )
    node.create()
    return node


def _instance(ctx):
    inst = instance_obj.Instance(
        ctx,
        uuid=str(uuid.uuid4()),
        project_id='p',
        user_id='u',
        flavor={'name': 'small'},
        vm_state='building',
        vcpus=1,
        memory_mb=512,
        root_gb=1,
    )
    inst.create()
    return inst


def test_instance_save_node_without_compute_id_is_refused(ctx):
    inst = _instance(ctx)
    inst.host = 'host1'
    inst.node = 'node1'
    with pytest.raises(exception.ObjectActionError, match='compute_id'):
        inst.save()
    stored = instance_obj.Instance.get_by_uuid(ctx, inst.uuid)
    assert stored.node is None
    assert stored.host is None
    assert stored.compute_id is None


def test_instance_save_compute_id_without_node_is_refused(ctx):
    node = _node(ctx, _service(ctx))
    inst = _instance(ctx)
    inst.node = None
    inst.compute_id = node.id
    with pytest.raises(exception.ObjectActionError):
        inst.save()
    assert instance_obj.Instance.get_by_uuid(ctx, inst.uuid).compute_id is None


def test_instance_save_node_with_compute_id(ctx):
    node = _node(ctx, _service(ctx))
    inst = _instance(ctx)
    inst.host = node.host
    inst.node = node.hypervisor_hostname
    inst.compute_id = node.id
    inst.save()
    assert inst.obj_what_changed() == set()
    stored = instance_obj.Instance.get_by_uuid(ctx, inst.uuid)
    assert (stored.host, stored.node, stored.compute_id) == (
        'host1',
        'node1',
        node.id,
    )
    # Unscheduling clears both together, which is allowed.
    inst.node = None
    inst.compute_id = None
    inst.save()
    assert instance_obj.Instance.get_by_uuid(ctx, inst.uuid).node is None


def test_instance_hostname_is_stored_and_left_out_for_1_3(ctx):
    inst = instance_obj.Instance(
        ctx,
        uuid=str(uuid.uuid4()),
        project_id='p',
        user_id='u',
        flavor={'name': 'small'},
        vm_state='building',
        hostname='web-1',
    )
    inst.create()
    stored = instance_obj.Instance.get_by_uuid(ctx, inst.uuid)
    assert stored.hostname == 'web-1'
    data = stored.obj_to_primitive()['versioned_object.data']
    assert data['hostname'] == 'web-1'
    old = stored.obj_to_primitive(target_version='1.3')
    assert old['versioned_object.version'] == '1.3'
    assert 'hostname' not in old['versioned_object.data']
    assert 'display_name' in old['versioned_object.data']


def test_compute_node_object_refuses_create_without_uuid(ctx):
    svc = _service(ctx)
    node = compute_node_obj.ComputeNode(
        ctx,
        service_id=svc.id,
        host='host1',
        hypervisor_hostname='n',
        hypervisor_type='fake',
    )
    with pytest.raises(exception.ObjectActionError, match='uuid'):
        node.create()
    assert len(compute_node_obj.ComputeNodeList.get_all(ctx)) == 0


# -- the indirection switch ---------------------------------------------------


class RecordingIndirectionAPI:
    """A fake conductor: the oslo.versionedobjects indirection interface."""

    def __init__(self, result=None):
        self.calls = []
        self.result = result

    def object_class_action_versions(
        self, context, objname, objmethod, object_versions, args, kwargs
    ):
        self.calls.append(
            (
                'class_action',
                objname,
                objmethod,
                args,
                kwargs,
                threading.get_ident(),
            )
        )
        return self.result

    def object_action(self, context, objinst, objmethod, args, kwargs):
        self.calls.append(
            (
                'action',
                objinst.obj_name(),
                objmethod,
                args,
                kwargs,
                threading.get_ident(),
            )
        )
        return {}, None

    def object_backport_versions(self, context, objinst, object_versions):
        raise AssertionError('not expected')


def test_remote_objects_routes_class_calls_to_indirection_api(ctx):
    svc = _service(ctx)
    marker = object()
    fake = RecordingIndirectionAPI(result=marker)
    with base.remote_objects(fake):
        got = service_obj.Service.get_by_id(ctx, svc.id)
    assert got is marker
    assert [c[:5] for c in fake.calls] == [
        ('class_action', 'Service', 'get_by_id', (svc.id,), {})
    ]

    # Outside the block the same call reads the database.
    local = service_obj.Service.get_by_id(ctx, svc.id)
    assert isinstance(local, service_obj.Service)
    assert local.uuid == svc.uuid
    assert len(fake.calls) == 1


def test_remote_objects_routes_instance_calls(ctx):
    svc = _service(ctx)
    fake = RecordingIndirectionAPI()
    svc.disabled = True
    with base.remote_objects(fake):
        svc.save()
    assert [c[:3] for c in fake.calls] == [('action', 'Service', 'save')]
    # Nothing reached the database.
    assert service_obj.Service.get_by_id(ctx, svc.id).disabled is False


def test_remote_objects_nests_and_restores(ctx):
    svc = _service(ctx)
    outer = RecordingIndirectionAPI(result='outer')
    inner = RecordingIndirectionAPI(result='inner')
    with base.remote_objects(outer):
        with base.remote_objects(inner):
            assert service_obj.Service.get_by_id(ctx, svc.id) == 'inner'
        assert service_obj.Service.get_by_id(ctx, svc.id) == 'outer'
    assert service_obj.Service.get_by_id(ctx, svc.id).id == svc.id
    assert (len(outer.calls), len(inner.calls)) == (1, 1)


def test_remote_objects_restores_after_an_exception(ctx):
    svc = _service(ctx)
    fake = RecordingIndirectionAPI()
    with pytest.raises(RuntimeError):
        with base.remote_objects(fake):
            raise RuntimeError('boom')
    assert service_obj.Service.get_by_id(ctx, svc.id).id == svc.id
    assert fake.calls == []


def test_remote_objects_does_not_affect_other_threads(ctx):
    svc = _service(ctx)
    fake = RecordingIndirectionAPI(result='remote')
    inside = threading.Event()
    other_done = threading.Event()
    other_result = {}

    def other_thread():
        inside.wait(10)
        try:
            # Its own context: a context's transaction is per thread.
            other_ctx = lite_context.get_admin_context()
            other_result['value'] = service_obj.Service.get_by_id(
                other_ctx, svc.id
            )
        except Exception as exc:  # reported by the assertion below
            other_result['error'] = exc
        finally:
            other_done.set()

    thread = threading.Thread(target=other_thread)
    thread.start()
    with base.remote_objects(fake):
        inside.set()
        # The other thread calls while this thread is inside the block.
        assert other_done.wait(10)
        assert service_obj.Service.get_by_id(ctx, svc.id) == 'remote'
    thread.join(10)

    assert 'error' not in other_result, other_result
    value = other_result['value']
    assert isinstance(value, service_obj.Service)
    assert value.uuid == svc.uuid
    assert [c[2] for c in fake.calls] == ['get_by_id']
    assert fake.calls[0][5] == threading.get_ident()


def test_remote_objects_in_another_thread_leaves_this_one_local(ctx):
    svc = _service(ctx)
    fake = RecordingIndirectionAPI(result='remote')
    entered = threading.Event()
    release = threading.Event()

    def compute_thread():
        with base.remote_objects(fake):
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=compute_thread)
    thread.start()
    try:
        assert entered.wait(10)
        local = service_obj.Service.get_by_id(ctx, svc.id)
    finally:
        release.set()
        thread.join(10)
    assert isinstance(local, service_obj.Service)
    assert fake.calls == []


def test_instance_scheduler_hints_round_trip_and_backport(ctx):
    inst = instance_obj.Instance(
        ctx,
        uuid=str(uuid.uuid4()),
        project_id='p',
        user_id='u',
        flavor={'name': 'small'},
        vm_state='building',
        vcpus=1,
        memory_mb=512,
        root_gb=1,
        scheduler_hints={'same_host': ['a', 'b']},
    )
    inst.create()
    stored = instance_obj.Instance.get_by_uuid(ctx, inst.uuid)
    assert stored.scheduler_hints == {'same_host': ['a', 'b']}
    # An older receiver (1.3) gets no field it does not know.
    old = stored.obj_to_primitive(target_version='1.3')
    assert 'scheduler_hints' not in old['versioned_object.data']
    assert (
        'scheduler_hints' in stored.obj_to_primitive()['versioned_object.data']
    )
