"""A BMC answering IPMI 2.0 (RMCP+) on 127.0.0.1: pyghmi's ``Bmc``
server with a chassis whose state lives in a JSON file, run as its own
process. The ipmi hardware type's tests drive it with pyghmi, as they
would a real BMC.

The state file says what the BMC did (``power``, ``boot_device``,
``persistent``, ``uefi``, ``nmi`` count, ``actions`` in order) and may
be written by a test to change the machine behind the BMC's back (a
power button pressed). :meth:`Responder.mute` makes it drop every
packet while a flag file exists: the BMC no longer answers, as a hung
or unplugged one. (Stopping the process instead leaves a backlog of
stale logins that pyghmi's server mishandles once it runs again.)

Run: ``python -m ironic_lite.tests.ipmi_responder --port P --state F
--user U --password W --mute-file M``.
"""

import argparse
import json
import os
from pathlib import Path
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

from lite_common.tests import ports

#: The chassis of a new responder.
INITIAL_STATE: dict[str, Any] = {
    'power': 'off',
    'boot_device': 'default',
    'persistent': False,
    'uefi': False,
    'nmi': 0,
    'actions': [],
}
#: IPMI completion codes.
OK = 0
NOT_IN_STATE = 0xD5  # "command not supported in present state"
#: RMCP+ authentication algorithm 1, and the status refusing others.
HMAC_SHA1 = 1
NO_CIPHER_SUITE_MATCH = 0x11
UNAUTHORIZED_NAME = 0x0D


def read_state(path: Path) -> dict[str, Any]:
    return dict(json.loads(Path(path).read_text()))


def write_state(path: Path, state: dict[str, Any]) -> None:
    """Replace the state file at once (readers never see half of it)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix='.state-')
    with os.fdopen(fd, 'w') as handle:
        json.dump(state, handle)
    os.replace(tmp, path)


def _use_cipher_suite_3_only() -> None:
    """Make the server refuse what it cannot do, as a real BMC does.

    pyghmi's server session speaks cipher suite 3 (HMAC-SHA1) only, but
    answers an RMCP+ open session request proposing SHA-256 (pyghmi's
    client's first proposal, suite 17) as if it had accepted it, and
    the login then fails. Refusing the proposal ("no cipher suite
    match") makes the client fall back to suite 3. An unknown user is
    refused too ("unauthorized name").
    """
    from pyghmi.ipmi.private import serversession

    class Suite3Session(serversession.ServerSession):  # type: ignore[misc]
        def create_open_session_response(self, request: Any) -> Any:
            if len(request) >= 13 and request[12] != HMAC_SHA1:
                return bytearray(
                    [request[0], NO_CIPHER_SUITE_MATCH, 0, 0]
                ) + bytearray(request[4:8])
            return super().create_open_session_response(request)

        def _got_rakp1(self, data: Any) -> None:
            # pyghmi's server ignores an unknown user, and pyghmi's
            # client then waits for ever: refuse it, as a BMC does.
            name = bytes(data[28:]).decode('utf-8', 'replace')
            if data[27] and self.authdata.get(name) is None:
                self.send_payload(
                    bytearray([data[0], UNAUTHORIZED_NAME, 0, 0])
                    + self.clientsessionid,
                    serversession.constants.payload_types['rakp2'],
                    retry=False,
                )
                return
            super()._got_rakp1(data)

    serversession.ServerSession = Suite3Session


def _drop_packets_while(mute_file: Path) -> None:
    """Read and drop every packet while ``mute_file`` exists: a BMC
    that does not answer (and, unlike a stopped process, does not
    answer a backlog of old packets when it comes back)."""
    from pyghmi.ipmi.private import session as ipmi_session

    receive = ipmi_session._io_recvfrom

    def muted_receive(sock: Any, size: int) -> Any:
        received = receive(sock, size)
        if received is not None and mute_file.exists():
            return (b'', received[1])  # too short: skipped
        return received

    ipmi_session._io_recvfrom = muted_receive


def _make_bmc_class() -> type:
    # pyghmi is imported here: the test process only needs this module
    # for the Responder helper.
    from pyghmi.ipmi import bmc as pyghmi_bmc
    from pyghmi.ipmi import command as ipmi_command

    _use_cipher_suite_3_only()

    class FileBackedBmc(pyghmi_bmc.Bmc):  # type: ignore[misc]
        """A BMC whose chassis is the state file."""

        def __init__(
            self, authdata: dict[str, str], port: int, state_file: Path
        ) -> None:
            super().__init__(authdata, port=port, address='127.0.0.1')
            self.state_file = state_file

        def _change(self, action: str, **values: Any) -> int:
            state = read_state(self.state_file)
            state.update(values)
            state['actions'].append(action)
            write_state(self.state_file, state)
            return OK

        def get_power_state(self) -> str:
            return str(read_state(self.state_file)['power'])

        def power_on(self) -> int:
            return self._change('on', power='on')

        def power_off(self) -> int:
            return self._change('off', power='off')

        def power_shutdown(self) -> int:
            # The OS of a machine that is off cannot shut it down.
            if self.get_power_state() == 'off':
                return NOT_IN_STATE
            return self._change('shutdown', power='off')

        def power_reset(self) -> int:
            if self.get_power_state() == 'off':
                return NOT_IN_STATE
            return self._change('reset', power='on')

        def power_cycle(self) -> int:
            if self.get_power_state() == 'off':
                return NOT_IN_STATE
            return self._change('cycle', power='on')

        def pulse_diag(self) -> int:
            state = read_state(self.state_file)
            return self._change('diag', nmi=state['nmi'] + 1)

        def cold_reset(self) -> int:
            return self._change('cold_reset')

        def get_boot_device(self) -> str:
            return str(read_state(self.state_file)['boot_device'])

        def set_boot_device(self, bootdevice: str) -> None:
            self._change(f'bootdev {bootdevice}', boot_device=bootdevice)

        def get_system_boot_options(self, request: Any, session: Any) -> Any:
            """Boot flags with the persistent and UEFI bits, which
            pyghmi's Bmc leaves out."""
            if request['data'][0] != 5:
                return session.send_ipmi_response(code=0x80)
            state = read_state(self.state_file)
            device = ipmi_command.boot_devices[state['boot_device']]
            flags = (
                0
                if device == 0
                else (
                    0x80
                    | (0x40 if state['persistent'] else 0)
                    | (0x20 if state['uefi'] else 0)
                )
            )
            return session.send_ipmi_response(
                data=[1, 5, flags, device, 0, 0, 0]
            )

        def set_system_boot_options(self, request: Any, session: Any) -> Any:
            data = request['data']
            if data[0] != 5 or len(data) < 3:
                # Boot info acknowledge, the 60 s timeout...: accepted.
                return session.send_ipmi_response()
            flags = data[1]
            number = (data[2] >> 2) & 0b1111
            device = ipmi_command.boot_devices.get(number)
            if device is None:
                return session.send_ipmi_response(code=0xCC)
            if not flags & 0x80:
                device = 'default'
            self._change(
                f'bootdev {device}',
                boot_device=device,
                persistent=bool(flags & 0x40),
                uefi=bool(flags & 0x20),
            )
            return session.send_ipmi_response()

    return FileBackedBmc


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--state', type=Path, required=True)
    parser.add_argument('--user', required=True)
    parser.add_argument('--password', required=True)
    parser.add_argument('--mute-file', type=Path, required=True)
    args = parser.parse_args(argv)
    _drop_packets_while(args.mute_file)
    if not args.state.exists():
        write_state(args.state, INITIAL_STATE)
    bmc = _make_bmc_class()({args.user: args.password}, args.port, args.state)
    print(f'listening on 127.0.0.1:{args.port}', flush=True)
    bmc.listen(timeout=1)


class Responder:
    """The responder as a child process. Start with :meth:`start`,
    always :meth:`stop`."""

    def __init__(
        self,
        workdir: Path,
        username: str = 'admin',
        password: str = 'pa55w0rd',
    ) -> None:
        self.workdir = Path(workdir)
        self.username = username
        self.password = password
        self.port = ports.free_port(socket.SOCK_DGRAM)
        self.state_file = self.workdir / 'bmc-state.json'
        self.mute_file = self.workdir / 'mute'
        self.popen: subprocess.Popen[bytes] | None = None

    def driver_info(self, **overrides: Any) -> dict[str, Any]:
        """The driver_info of a node behind this BMC."""
        return {
            'ipmi_address': '127.0.0.1',
            'ipmi_port': self.port,
            'ipmi_username': self.username,
            'ipmi_password': self.password,
            **overrides,
        }

    def start(self, timeout: float = 20) -> 'Responder':
        self.workdir.mkdir(parents=True, exist_ok=True)
        write_state(self.state_file, INITIAL_STATE)
        log = open(self.workdir / 'responder.log', 'ab')
        self.popen = subprocess.Popen(
            [
                sys.executable,
                '-m',
                'ironic_lite.tests.ipmi_responder',
                '--port',
                str(self.port),
                '--state',
                str(self.state_file),
                '--user',
                self.username,
                '--password',
                self.password,
                '--mute-file',
                str(self.mute_file),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while 'listening' not in (self.workdir / 'responder.log').read_text():
            if self.popen.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(
                    'the IPMI responder did not start; see '
                    f'{self.workdir / "responder.log"}'
                )
            time.sleep(0.1)
        return self

    def state(self) -> dict[str, Any]:
        return read_state(self.state_file)

    def set_power(self, power: str) -> None:
        """Change the machine's power behind the conductor's back."""
        state = self.state()
        state['power'] = power
        write_state(self.state_file, state)

    def mute(self) -> None:
        """Stop answering: every packet is read and dropped."""
        self.mute_file.touch()

    def unmute(self) -> None:
        self.mute_file.unlink(missing_ok=True)

    def stop(self) -> None:
        if self.popen is None:
            return
        self.popen.terminate()
        try:
            self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
        self.popen = None


if __name__ == '__main__':
    main()
