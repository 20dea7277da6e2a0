#!/usr/bin/env bash
# Regenerate the generated files: sample configs and policies (etc/) and
# the OpenAPI documents (doc/source/api/openapi/). Run after adding an
# option, a policy rule or a route; tests check that they are current.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for svc in nova_lite ironic_lite neutron_lite; do
    name=${svc/_/-}
    .venv/bin/oslo-config-generator \
        --config-file "etc/$svc/$name-config-generator.conf" \
        --output-file "etc/$svc/$name.conf.sample"
    .venv/bin/oslopolicy-sample-generator \
        --config-file "etc/$svc/$name-policy-generator.conf" \
        --output-file "etc/$svc/policy.yaml.sample"
done
.venv/bin/oslo-config-generator \
    --config-file etc/ironic_lite/ironic-lite-agent-config-generator.conf \
    --output-file etc/ironic_lite/ironic-lite-agent.conf.sample
.venv/bin/python -m nova_lite.api.openapi > doc/source/api/openapi/compute.json
.venv/bin/python -m ironic_lite.api.openapi > doc/source/api/openapi/baremetal.json
