"""Print the slowest test modules of a pytest JUnit XML report.

tools/run-tests.sh calls this after every run, so that each CI log shows
where the suite's time goes (the sum of each module's test times,
set-up and tear-down included) and the LONGEST_FIRST order there can be
kept up to date.
"""

import collections
import sys
import xml.etree.ElementTree as ET

SHOWN = 25


def _module(classname: str) -> str:
    # 'pkg.tests.test_x' or 'pkg.tests.test_x.TestClass': up to the
    # first test_ part.
    parts = classname.split('.')
    for index, part in enumerate(parts):
        if part.startswith('test_'):
            return '.'.join(parts[: index + 1])
    return classname


def main(path: str) -> int:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        print(f'module-times: cannot read {path}: {exc}')
        return 0
    times: collections.Counter[str] = collections.Counter()
    for case in root.iter('testcase'):
        times[_module(case.get('classname') or '')] += float(
            case.get('time') or 0
        )
    total = sum(times.values())
    print(
        f'module-times: {len(times)} modules, {total:.0f} s of test time '
        f'(over both workers); the {SHOWN} slowest:'
    )
    for module, seconds in times.most_common(SHOWN):
        print(f'{seconds:8.1f} s  {module}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
