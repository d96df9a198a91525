# esxdiag fleet: print the report's text (the matrices and the failing pairs in
# words, tasks/report.yml's esxdiag_report_text fact) as the very last thing of the
# run, after Ansible's recap. Ansible runs it when it is named in callbacks_enabled
# (esxdiag.fleet.esxdiag_report), or from callback_plugins/ beside a checkout's
# esxi/fleet/validate.yml; it prints nothing for other playbooks, or when the stdout
# callback writes JSON.

DOCUMENTATION = '''
    name: esxdiag_report
    type: notification
    short_description: print the esxdiag fleet report at the end of the run
    description:
        - Prints the esxdiag_report_text fact set by the esxdiag role's report step.
'''

import os

from ansible import constants as C
from ansible.plugins.callback import CallbackBase


# set to the controller's pid once the report is printed: the plugin may be loaded twice
# in one run (named in callbacks_enabled and found in a checkout's callback_plugins),
# and it prints once; an ansible-playbook started from this one has its own pid
SHOWN = 'ESXDIAG_REPORT_SHOWN'


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'notification'
    CALLBACK_NAME = 'esxdiag_report'
    CALLBACK_NEEDS_ENABLED = False

    def __init__(self):
        super(CallbackModule, self).__init__()
        self._text = None

    def v2_runner_on_ok(self, result):
        facts = result._result.get('ansible_facts') or {}
        if 'esxdiag_report_text' in facts:
            self._text = facts['esxdiag_report_text']

    def v2_playbook_on_stats(self, stats):
        if self._text and 'json' not in str(C.DEFAULT_STDOUT_CALLBACK) and os.environ.get(SHOWN) != str(os.getpid()):
            os.environ[SHOWN] = str(os.getpid())
            self._display.display('\n' + self._text.rstrip('\n'))
