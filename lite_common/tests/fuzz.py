"""Fuzz an API from its own OpenAPI document with schemathesis.

Every operation of the document served at ``/openapi.json`` gets valid
and invalid requests (schemathesis' positive and negative generation,
with a fixed seed); each answer is checked: never a 5xx, an error is in
the API's own format, no body shows a traceback or SQL, and the answer
is the one the document describes (schemathesis'
``response_schema_conformance``; a success status the operation does
not list; a body where it says none). Findings are collected, not raised
at the first, so that one run reports them all.

The microversion is one the document allows for the operation (its
header parameter, generated as any other); the caller's headers give
only what the case leaves out. Operations whose valid requests were all
refused (400 or 422) are reported, not failed: the schema accepts what
the handler rejects.

``python -m nova_lite.tests.functional.test_fuzz --examples 500`` (and
the ironic twin) run longer.
"""

import argparse
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
import copy
import dataclasses
import json
import os
import re
from typing import Any

import hypothesis
import hypothesis.errors
import schemathesis
from schemathesis import GenerationMode
from schemathesis.checks import response_schema_conformance
from schemathesis.core.failures import FailureGroup
import webob

#: Requests per operation and generation mode in CI.
EXAMPLES = int(os.environ.get('STACKLITE_FUZZ_EXAMPLES', '8'))
#: The same for the run as a project member: fewer, since most of what
#: it sends an administrator's operation stops at the policy check,
#: which the admin run has gone past to the handlers.
MEMBER_EXAMPLES = max(1, EXAMPLES * 2 // 5)

#: Text that must never reach a client.
LEAKS = re.compile(
    r'Traceback \(most recent call last\)|sqlalchemy|'
    r'pymysql|psycopg|sqlite3\.|\bSELECT\b.*\bFROM\b|'
    r'\bINSERT INTO\b|\bUPDATE\b.*\bSET\b',
    re.IGNORECASE,
)


@dataclasses.dataclass(frozen=True)
class Finding:
    method: str
    path: str
    status: int
    problem: str
    body: str

    def __str__(self) -> str:
        return (
            f'{self.method} {self.path} -> {self.status}: '
            f'{self.problem}: {self.body[:300]}'
        )


@dataclasses.dataclass
class Report:
    requests: int = 0
    operations: int = 0
    findings: list[Finding] = dataclasses.field(default_factory=list)
    statuses: dict[int, int] = dataclasses.field(default_factory=dict)
    #: Operations whose valid requests were all refused (400 or 422).
    refused: list[str] = dataclasses.field(default_factory=list)


def check(
    status: int, text: str, method: str, error_format_ok: Callable[[Any], bool]
) -> str | None:
    """What is wrong with one answer, or None."""
    if status >= 500:
        return 'a server error'
    if LEAKS.search(text):
        return 'a traceback or SQL in the body'
    if status >= 400 and method != 'HEAD':
        try:
            body = json.loads(text)
        except ValueError:
            return 'an error that is not JSON'
        if not error_format_ok(body):
            return "an error not in the API's format"
    return None


def conformance(case: Any, response: Any) -> str | None:
    """Whether an answer is not the one the document describes."""
    answers = case.operation.definition.raw.get('responses', {})
    status = str(response.status_code)
    if (
        response.status_code < 300
        and '2XX' not in answers
        and status not in answers
    ):
        return (
            f'a success status the document does not list '
            f'({", ".join(sorted(answers))})'
        )
    answer = answers.get(status)
    if (
        answer is not None
        and 'content' not in answer
        and response.content
        and case.method.upper() != 'HEAD'
    ):
        return 'a body where the document says none'
    try:
        case.validate_response(response, checks=[response_schema_conformance])
    except FailureGroup as group:
        return 'not as documented: ' + '; '.join(
            f'{failure.title}: {failure.message}'
            for failure in group.exceptions
        )
    return None


def with_known_values(
    doc: dict[str, Any], known: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    """``doc`` whose path parameters named in ``known`` take those
    values."""
    doc = copy.deepcopy(doc)
    for item in doc['paths'].values():
        for parameter in item.get('parameters', []):
            values = known.get(parameter.get('name'))
            if parameter.get('in') == 'path' and values:
                parameter['schema'] = {'type': 'string', 'enum': list(values)}
    return doc


def fuzz(
    app: Any,
    headers: dict[str, str],
    error_format_ok: Callable[[Any], bool],
    examples: int,
    seed: int,
    path: str = '/openapi.json',
    known: Mapping[str, Sequence[str]] | None = None,
) -> Report:
    """Fuzz every operation of ``app``'s document, ``examples`` requests
    per operation and generation mode."""
    doc = webob.Request.blank(path).get_response(app).json
    schema = schemathesis.openapi.from_dict(
        with_known_values(doc, known or {})
    )
    schema.app = app
    schema.location = path
    report = Report()
    operations = [result.ok() for result in schema.get_all_operations()]
    operations.sort(key=_deletions_last)
    for operation in operations:
        report.operations += 1
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _run(
                operation,
                mode,
                headers,
                error_format_ok,
                examples,
                seed,
                report,
            )
    return report


def _may_succeed(operation: Any) -> bool:
    """Whether the document lists a success answer (some operations
    only ever answer an error, as upstream's do)."""
    answers = operation.definition.raw.get('responses', {})
    return any(status.startswith('2') for status in answers)


def _deletions_last(operation: Any) -> tuple[bool, int]:
    deletes = operation.method.upper() == 'DELETE'
    return deletes, -operation.path.count('/') if deletes else 0


def _run(
    operation: Any,
    mode: GenerationMode,
    headers: dict[str, str],
    error_format_ok: Callable[[Any], bool],
    examples: int,
    seed: int,
    report: Report,
) -> None:
    @hypothesis.seed(seed)
    @hypothesis.settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(hypothesis.HealthCheck),
        phases=[hypothesis.Phase.generate],
    )
    @hypothesis.given(case=operation.as_strategy(generation_mode=mode))
    def one(case: Any) -> None:
        given = {name.lower() for name in case.headers or {}}
        response = case.call(
            headers={
                name: value
                for name, value in headers.items()
                if name.lower() not in given
            }
        )
        report.requests += 1
        status = response.status_code
        report.statuses[status] = report.statuses.get(status, 0) + 1
        refusals.append(status in (400, 422))
        problem = check(
            status, response.text, case.method.upper(), error_format_ok
        )
        if problem is None:
            problem = conformance(case, response)
        if problem is not None:
            report.findings.append(
                Finding(
                    case.method.upper(),
                    case.formatted_path,
                    status,
                    problem,
                    response.text,
                )
            )

    refusals: list[bool] = []
    try:
        one()
    except hypothesis.errors.Unsatisfiable:
        pass  # nothing to make invalid (no parameters, no body)
    if (
        mode == GenerationMode.POSITIVE
        and refusals
        and all(refusals)
        and _may_succeed(operation)
    ):
        report.refused.append(operation.label)


#: (auth strategy, request headers, examples, seed) -> the report.
Runner = Callable[[str, dict[str, str], int, int], Report]


def assert_clean(report: Report) -> None:
    print(
        f'{report.requests} requests over {report.operations} '
        f'operations: {report.statuses}'
    )
    for label in report.refused:
        print(f'  valid requests all refused: {label}')
    for finding in report.findings:
        print(f'  {finding}')
    assert report.requests > report.operations
    assert [str(f) for f in report.findings] == []


def main(
    description: str,
    runner: Runner,
    users: Sequence[tuple[str, dict[str, str]]],
    seed: int,
    argv: list[str] | None = None,
) -> int:
    """A longer run from the command line; 1 if anything was found."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--examples', type=int, default=500)
    parser.add_argument('--seed', type=int, default=seed)
    args = parser.parse_args(argv)
    found = 0
    for auth, headers in users:
        report = runner(auth, headers, args.examples, args.seed)
        print(
            f'{auth}: {report.requests} requests over '
            f'{report.operations} operations: {report.statuses}'
        )
        for finding in report.findings:
            print(f'  {finding}')
        for label in report.refused:
            print(f'  valid requests all refused: {label}')
        found += len(report.findings)
    return 1 if found else 0
