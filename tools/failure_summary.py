"""Print the failures of a pytest JUnit XML report, briefly.

tools/run-tests.sh calls this after a failed run, so that the end of the
output (often all a CI log viewer shows) names each failing test with the
assertion that failed, before the long service-log sections scroll it
away.
"""

import sys
import xml.etree.ElementTree as ET

LINES = 25


def main(path: str) -> int:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        print(f'failure-summary: cannot read {path}: {exc}')
        return 0
    for case in root.iter('testcase'):
        for problem in (*case.findall('failure'), *case.findall('error')):
            name = f'{case.get("classname")}::{case.get("name")}'
            print(f'===== {problem.tag.upper()}: {name}')
            text = (problem.text or problem.get('message') or '').strip()
            # The assertion lines (pytest marks them with "E   ").
            lines = [
                line for line in text.splitlines() if line.startswith('E ')
            ] or text.splitlines()
            print('\n'.join(lines[:LINES]))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
