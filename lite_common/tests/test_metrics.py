"""lite_common.metrics: request series by route template, timed RPC
calls, the pool collector, the listener and the /metrics endpoint."""

import sys
import urllib.request

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging._drivers import common as driver_common
import prometheus_client
import pytest
import sqlalchemy as sa
import webob
import webob.exc

from lite_common import context as lite_context
from lite_common import metrics
from lite_common.metrics import api as api_metrics
from lite_common.metrics import db_pool
from lite_common.metrics import listener
from lite_common.metrics import opts
from lite_common.metrics import rpc_client
from lite_common.wsgi import auth
from lite_common.wsgi import faults
from lite_common.wsgi import router


def value(name, **labels):
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


def _conf(**overrides):
    conf = cfg.ConfigOpts()
    opts.register_opts(conf)
    conf([], default_config_files=[], default_config_dirs=[])
    for name, val in overrides.items():
        conf.set_override(name, val, group='metrics')
    return conf


def _show(req):
    return webob.Response(json_body={'id': req.urlvars['thing_id']})


def _app():
    table = {'/things/{thing_id}': {'GET': _show}}
    app = faults.FaultWrapper(router.Router(table), _error)
    api_metrics.register()
    return api_metrics.RequestMetrics(app, 'test')


def _error(status, message, req):
    return 'text/plain', message.encode()


def test_requests_are_labelled_by_route_template_not_path():
    app = _app()
    labels = dict(
        api='test', method='GET', route='/things/{thing_id}', status='200'
    )
    before = value('stacklite_api_requests_total', **labels)
    count = value('stacklite_api_request_duration_seconds_count', **labels)
    for thing in ('a', 'b', 'c'):
        assert (
            webob.Request.blank(f'/things/{thing}')
            .get_response(app)
            .status_int
            == 200
        )
    assert value('stacklite_api_requests_total', **labels) == before + 3
    assert (
        value('stacklite_api_request_duration_seconds_count', **labels)
        == count + 3
    )
    assert (
        value(
            'stacklite_api_requests_total',
            api='test',
            method='GET',
            route='/things/a',
            status='200',
        )
        == 0
    )


def test_unmatched_paths_and_odd_methods_share_one_label():
    app = _app()
    nowhere = dict(api='test', method='GET', route='unmatched', status='404')
    odd = dict(
        api='test', method='other', route='/things/{thing_id}', status='405'
    )
    before = (
        value('stacklite_api_requests_total', **nowhere),
        value('stacklite_api_requests_total', **odd),
    )
    for path in ('/x1', '/x2/y'):
        webob.Request.blank(path).get_response(app)
    webob.Request.blank('/things/a', method='BREW').get_response(app)
    assert value('stacklite_api_requests_total', **nowhere) == before[0] + 2
    assert value('stacklite_api_requests_total', **odd) == before[1] + 1


class _Client:
    """Stands in for oslo.messaging's client (not our code)."""

    def __init__(self, raises=None):
        self.raises = raises
        self.prepared = {}

    def prepare(self, **kwargs):
        self.prepared = kwargs
        return self

    def call(self, ctxt, method, **kwargs):
        if self.raises:
            raise self.raises
        return {'method': method, **kwargs}

    def cast(self, ctxt, method, **kwargs):
        return 'cast'


@pytest.mark.parametrize(
    'raises,outcome',
    [
        (None, 'success'),
        (ValueError('no'), 'error'),
        (messaging.MessagingTimeout('slow'), 'timeout'),
    ],
)
def test_rpc_calls_are_timed_by_topic_method_and_outcome(raises, outcome):
    rpc_client.register()
    client = rpc_client.TimedClient(_Client(raises), 'conductor')
    labels = dict(topic='conductor', method='do_it', outcome=outcome)
    name = 'stacklite_rpc_client_call_duration_seconds_count'
    before = value(name, **labels)
    prepared = client.prepare(server='h1')
    assert isinstance(prepared, rpc_client.TimedClient)
    if raises is None:
        assert prepared.call({}, 'do_it', x=1) == {'method': 'do_it', 'x': 1}
    else:
        with pytest.raises(type(raises)):
            prepared.call({}, 'do_it', x=1)
    assert prepared.cast({}, 'do_it') == 'cast'
    assert value(name, **labels) == before + 1


def test_pool_collector_reads_checked_out_connections(tmp_path):
    engine = sa.create_engine(
        f'sqlite:///{tmp_path}/p.db', poolclass=sa.pool.QueuePool, pool_size=3
    )
    db_pool.track('testdb', lambda: engine)
    with engine.connect():
        assert (
            value(
                'stacklite_db_pool_checked_out_connections', database='testdb'
            )
            == 1
        )
        assert (
            value('stacklite_db_pool_size_connections', database='testdb') == 3
        )
    assert (
        value('stacklite_db_pool_checked_out_connections', database='testdb')
        == 0
    )
    engine.dispose()


def test_listener_serves_the_registry_and_stops():
    api_metrics.register()
    assert listener.listener(_conf()) is None  # off by default
    conf = _conf(listen_port=1)
    assert listener.listener(_conf(listen_port=1, enabled=False)) is None
    assert listener.listener(conf).port == 1
    served = listener.Listener('127.0.0.1', 0)
    served.start()
    try:
        url = f'http://127.0.0.1:{served.port}/metrics'
        with urllib.request.urlopen(url, timeout=10) as resp:
            body = resp.read().decode()
    finally:
        served.stop()
    assert 'stacklite_api_requests_total' in body
    assert 'process_cpu_seconds_total' in body
    with pytest.raises(OSError):
        urllib.request.urlopen(url, timeout=2)


def _admin_only(ctx):
    return 'admin' in ctx.roles


def _with_context(app, roles):
    def middleware(environ, start_response):
        environ[auth.ENV_KEY] = lite_context.RequestContext(
            roles=roles, overwrite=False
        )
        return app(environ, start_response)

    return middleware


def _endpoint_app(conf, roles):
    endpoint = api_metrics.Endpoint(conf)
    inner = webob.exc.HTTPNotFound()
    app = endpoint.authenticated(inner, _admin_only)
    return endpoint.anonymous(_with_context(app, roles))


def test_endpoint_admin_only_by_default():
    get = webob.Request.blank('/metrics')
    resp = get.get_response(_endpoint_app(_conf(), ['admin']))
    assert resp.status_int == 200
    assert resp.content_type == 'text/plain'
    with pytest.raises(webob.exc.HTTPForbidden):
        get.get_response(_endpoint_app(_conf(), ['member']))


def test_endpoint_open_or_disabled_by_config():
    get = webob.Request.blank('/metrics')
    open_app = _endpoint_app(_conf(require_admin=False), ['member'])
    assert get.get_response(open_app).status_int == 200
    off = _endpoint_app(_conf(enabled=False), ['admin'])
    assert get.get_response(off).status_int == 404
    openmetrics = webob.Request.blank(
        '/metrics', headers={'Accept': 'application/openmetrics-text'}
    )
    resp = openmetrics.get_response(open_app)
    assert resp.content_type == 'application/openmetrics-text'
    assert resp.text.endswith('# EOF\n')


def test_one_registry_and_registering_is_idempotent():
    api_metrics.register()
    api_metrics.register()
    assert metrics.REGISTRY is prometheus_client.REGISTRY
    text = prometheus_client.generate_latest(metrics.REGISTRY).decode()
    assert text.count('# TYPE stacklite_api_requests_total counter') == 1


class Refused(Exception):
    """An exception a server declares as expected."""


def _as_the_client_gets_it(exc):
    """``exc`` raised by a server, as oslo.messaging rebuilds it on the
    client (a ``Refused_Remote`` subclass)."""
    try:
        raise exc
    except Exception:
        data = driver_common.serialize_remote_exception(sys.exc_info())
    return driver_common.deserialize_remote_exception(data, [__name__])


@pytest.mark.parametrize(
    'raises,outcome',
    [(Refused('locked'), 'expected_error'), (ValueError('no'), 'error')],
)
def test_rpc_calls_refused_as_expected_are_not_errors(raises, outcome):
    rpc_client.register()
    remote = _as_the_client_gets_it(raises)
    assert isinstance(remote, type(raises))
    client = rpc_client.TimedClient(
        _Client(remote), 'conductor', expected=(Refused,)
    )
    labels = dict(topic='conductor', method='refuse_it', outcome=outcome)
    name = 'stacklite_rpc_client_call_duration_seconds_count'
    before = value(name, **labels) or 0.0
    with pytest.raises(type(raises)):
        client.prepare(server='h1').call({}, 'refuse_it')
    assert value(name, **labels) == before + 1


def test_rpc_call_series_exist_at_0_for_every_outcome_after_a_call():
    rpc_client.register()
    client = rpc_client.TimedClient(_Client(), 'conductor')
    client.call({}, 'first_call')
    name = 'stacklite_rpc_client_call_duration_seconds_count'
    counts = {
        outcome: value(
            name, topic='conductor', method='first_call', outcome=outcome
        )
        for outcome in rpc_client.OUTCOMES
    }
    assert counts == {
        'success': 1.0,
        'expected_error': 0.0,
        'error': 0.0,
        'timeout': 0.0,
    }
