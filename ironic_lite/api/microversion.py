"""Bare Metal API microversions: the range, the history, the headers.

Every version in the range is accepted; a version without an entry in
:data:`ironic_lite.api.version_history.HISTORY` behaves as the one before
it. Every version is upstream Ironic's
(:mod:`ironic_lite.api.upstream_versions`); the history says what this
API serves of each, and :mod:`ironic_lite.api.version_gaps` what it does
not serve yet.

The advertised maximum is :data:`COMPLETE_VERSION`, the highest
version up to which every change is served; with
``[api]advertise_incomplete_versions`` it is :data:`MAX_VERSION`,
upstream's (:func:`versions_for`).

One resource is this API's own, with no upstream number: the clean steps
of a node (``GET /v1/nodes/{node_ident}/cleaning/steps``), served at the
advertised maximum version only and a 404 below it.
"""

from collections.abc import Iterable
import re
from typing import Any

import microversion_parse
import webob.exc

from lite_common.wsgi import microversion

MIN_VERSION = '1.1'
#: The highest version served at all (upstream Ironic 39's), with
#: ``[api]advertise_incomplete_versions``.
MAX_VERSION = '1.115'
#: The highest version up to which every change is served (a unit test
#: checks that it is :func:`ironic_lite.api.version_gaps.honest_maximum`):
#: the advertised maximum.
COMPLETE_VERSION = '1.115'
LEGACY_HEADER = 'X-OpenStack-Ironic-API-Version'
MIN_HEADER = 'X-OpenStack-Ironic-API-Minimum-Version'
MAX_HEADER = 'X-OpenStack-Ironic-API-Maximum-Version'

#: Version of each versioned feature, for handlers and views.
AVAILABLE_STATE = '1.2'
NAME = '1.5'
INSPECT_STATES = '1.6'
RFC3986_NAMES = '1.10'
ENROLL_STATE = '1.11'
DEPLOY_STEP = '1.44'
CONDUCTOR_GROUP = '1.46'
PROTECTED = '1.48'
OWNER = '1.50'
RETIRED = '1.61'
LESSEE = '1.65'
NETWORK_DATA = '1.66'
BOOT_MODE = '1.75'
PARENT_NODE = '1.83'
DISABLE_POWER_OFF = '1.95'
INSTANCE_NAME = '1.104'
HEALTH = '1.109'
CLEAN_STEP = '1.7'
FIELDS = '1.8'
PROVISION_STATE_FILTER = '1.9'
DRIVER_FILTER = '1.16'
RESOURCE_CLASS = '1.21'
POWER_TIMEOUT = '1.27'
DRIVER_TYPE = '1.30'
INTERFACES = '1.31'
RESCUE = '1.38'
BIOS = '1.40'
BIOS_REGISTRY = '1.74'
DRIVER_FIELDS = '1.77'
VIFS = '1.28'
VIF_PORT = '1.67'
REBUILD_CONFIGDRIVE = '1.35'
RAID = '1.12'
NETWORK_INTERFACE = '1.20'
STORAGE_INTERFACE = '1.33'
RESET_INTERFACES = '1.45'
UNSET_CHASSIS = '1.25'
VOLUME = '1.32'
TRAITS = '1.37'
FAULT = '1.42'
EVENTS = '1.54'
DETAIL_PARAM = '1.43'
AUTOMATED_CLEAN = '1.47'
CONDUCTOR = '1.49'
DESCRIPTION = '1.51'
DISABLE_RAMDISK = '1.70'
NODE_HISTORY = '1.78'
JSON_SUFFIX_KEPT = '1.91'
NODE_HISTORY_PROJECT = '1.113'
NODE_HISTORY_FIELDS = '1.115'
PORT_INTERNAL_INFO = '1.18'
INJECT_NMI = '1.29'
PORT_NET_FIELDS = '1.19'
PORT_PHYSICAL_NETWORK = '1.34'
PORT_SMART_NIC = '1.53'
PORT_NETWORK_TYPE = '1.64'
PORT_NAME = '1.88'
CONTINUE_INSPECTION = '1.84'
VMEDIA = '1.89'
VMEDIA_GET = '1.93'
PORT_OVN_VTEP = '1.90'
PORT_NODE_IDENT = '1.94'
PORT_DESCRIPTION = '1.97'
PORT_VENDOR = '1.100'
PORT_CATEGORY = '1.101'
PORT_OVN_VTEP_REMOVED = '1.105'
PORTGROUPS = '1.23'
PORTGROUP_LINKS = '1.24'
PORTGROUP_MODE = '1.26'
PORTGROUP_PHYSICAL_NETWORK = '1.102'
PORTGROUP_CATEGORY = '1.103'
PORTGROUP_SHARD = '1.106'
DYNAMIC_PORTGROUP = '1.111'
SHARD = '1.82'
RAMDISK = '1.22'
NODE_INVENTORY = '1.81'
DEPLOY_TEMPLATES = '1.55'
RUNBOOKS = '1.92'
INSPECTION_RULES = '1.96'
RUNBOOK_TRAITS = '1.112'
DEPLOY_STEPS = '1.69'
BOOT_MODE_CHANGE = '1.76'
BUILD_CONFIGDRIVE = '1.56'
CONFIGDRIVE_VENDOR_DATA = '1.59'
ALLOCATIONS = '1.52'
ALLOCATION_UPDATE = '1.57'
ALLOCATION_BACKFILL = '1.58'
ALLOCATION_OWNER = '1.60'
INSPECT_WAIT = '1.39'
INSPECT_ABORT = '1.41'
DEPLOY_ABORT = '1.110'
AGENT_VERSION = '1.36'
AGENT_TOKEN = '1.62'
AGENT_VERIFY_CA = '1.68'
AGENT_STATUS = '1.72'

#: Servicing: the service target and the node's service_step; with it
#: disable_ramdisk.
SERVICE = '1.87'
SERVICE_DISABLE_RAMDISK = '1.108'
#: The node's firmware interface and its firmware components.
FIRMWARE = '1.86'
#: Firmware components' vendor, model and serial_number.
FIRMWARE_IDENTITY = '1.114'
STATES_LINK = '1.14'


def _response_headers(
    versions: microversion.VersionRange, version: microversion.APIVersion
) -> Iterable[tuple[str, str]]:
    return [
        (MIN_HEADER, str(versions.minimum)),
        (MAX_HEADER, str(versions.maximum)),
        (LEGACY_HEADER, str(version)),
        ('OpenStack-API-Version', f'baremetal {version}'),
        ('Vary', f'OpenStack-API-Version, {LEGACY_HEADER}'),
    ]


#: Upstream parses ``MAJOR.MINOR`` as two integers: ``1.01`` is 1.1 and
#: ``0.9`` a version of another major (406), not a malformed one (400).
_VERSION_RE = re.compile(r'^\s*(\d{1,9})\.(\d{1,9})\s*$', re.ASCII)


class IronicVersionRange(microversion.VersionRange):
    """The shared range, with upstream Ironic's parsing and messages."""

    def requested(self, headers: Any) -> microversion.APIVersion:
        text = microversion_parse.get_version(
            headers,
            service_type=self.service_type,
            legacy_headers=[self.legacy_header],
        )
        if not text:
            # No header, or an empty one: the minimum, as upstream.
            return self.minimum
        if text.strip().lower() == 'latest':
            return self.maximum
        match = _VERSION_RE.match(text)
        if match is None:
            # Upstream's answer to any version it cannot parse: 406.
            raise webob.exc.HTTPNotAcceptable(
                explanation=f'Invalid value for {LEGACY_HEADER} header: '
                f'{text[:40]!r}. Expected MAJOR.MINOR or "latest".'
            )
        version = microversion.APIVersion(
            int(match.group(1)), int(match.group(2))
        )
        supported = (
            f'The supported version range is: [{self.minimum}, '
            f'{self.maximum}].'
        )
        if version.major != self.maximum.major:
            raise webob.exc.HTTPNotAcceptable(
                explanation='Mutually exclusive versions requested. '
                f'Version {version} requested but not supported by this '
                f'service. {supported}'
            )
        if not self.minimum <= version <= self.maximum:
            raise webob.exc.HTTPNotAcceptable(
                explanation=f'Version {version} was requested but the '
                f'minor version is not supported by this service. '
                f'{supported}'
            )
        return version


#: Every version served (with ``[api]advertise_incomplete_versions``).
VERSIONS = IronicVersionRange(
    'baremetal', MIN_VERSION, MAX_VERSION, LEGACY_HEADER, _response_headers
)
#: The complete versions only: the default.
COMPLETE_VERSIONS = IronicVersionRange(
    'baremetal',
    MIN_VERSION,
    COMPLETE_VERSION,
    LEGACY_HEADER,
    _response_headers,
)


def versions_for(advertise_incomplete: bool) -> IronicVersionRange:
    """The range an API advertises and accepts."""
    return VERSIONS if advertise_incomplete else COMPLETE_VERSIONS
