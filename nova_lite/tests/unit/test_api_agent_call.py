"""How the API answers the failures of an RPC call to a compute agent
(nova_lite.api.util.agent_call): 501 for a driver without the feature,
409 for an agent that does not answer or is too old for the call, and
any other remote error as it is."""

import oslo_messaging as messaging
import pytest
import webob.exc

from nova_lite.api import util


def _answer(error: Exception) -> webob.exc.HTTPException:
    with pytest.raises(webob.exc.HTTPException) as caught:
        with util.agent_call('compute-1'):
            raise error
    return caught.value


def test_a_driver_without_the_feature_is_501():
    answer = _answer(NotImplementedError())
    assert answer.code == 501
    assert 'not supported' in answer.explanation


def test_an_agent_that_does_not_answer_is_409():
    answer = _answer(messaging.MessagingTimeout('no reply'))
    assert answer.code == 409
    assert answer.explanation == (
        'Compute service of compute-1 is unavailable at this time.'
    )


def test_an_agent_of_an_older_release_is_409():
    # What the caller gets from an agent whose RPC API lacks the version
    # (oslo.messaging's dispatcher's UnsupportedVersion, remote).
    answer = _answer(
        messaging.RemoteError(
            'UnsupportedVersion',
            'Endpoint does not support RPC version 1.10. '
            'Attempted method: get_console_output',
        )
    )
    assert answer.code == 409
    assert 'too old for this request' in answer.explanation


def test_another_remote_error_is_not_hidden():
    with pytest.raises(messaging.RemoteError):
        with util.agent_call('compute-1'):
            raise messaging.RemoteError('KeyError', 'boom')
