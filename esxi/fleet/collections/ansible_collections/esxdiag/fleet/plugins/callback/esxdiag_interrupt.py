# esxdiag fleet: make ^C (SIGINT) or SIGTERM mean "stop testing, clean up every
# host". Ansible itself ends the run at once on ^C and skips `always:` blocks, which
# would leave hosts prepared (execInstalledOnly 0, the firewall ruleset open) with
# the kit on them. On the first signal this sets ESXDIAG_INTERRUPTED in the
# environment that the following tasks are started with; validate.yml's test steps
# skip when it is set, and its `always:` cleanup runs (the task that was running
# when the signal came ends as unreachable: its ssh got the ^C too, and the play
# ignores unreachable results). A second signal aborts at once, as Ansible does.

DOCUMENTATION = '''
    name: esxdiag_interrupt
    type: notification
    short_description: first ^C stops the esxdiag fleet tests and lets cleanup run
    description:
        - Turns the first SIGINT or SIGTERM into the ESXDIAG_INTERRUPTED environment variable.
'''

import os
import signal

from ansible.plugins.callback import CallbackBase

FLAG = 'ESXDIAG_INTERRUPTED'
# set while this plugin guards the run: without it the playbook says that ^C would end
# the run without cleanup (an installed collection's callbacks run only when named)
ARMED = 'ESXDIAG_INTERRUPT_ARMED'


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'notification'
    CALLBACK_NAME = 'esxdiag_interrupt'
    CALLBACK_NEEDS_ENABLED = False

    def v2_playbook_on_play_start(self, play):
        # only for the esxdiag playbook, installed once, in the controller process
        if getattr(self, '_pid', None) or not play.get_name().startswith('esxdiag fleet'):
            return
        self._pid = os.getpid()
        os.environ.pop(FLAG, None)
        os.environ[ARMED] = str(self._pid)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._on_signal)

    def _on_signal(self, signum, frame):
        name = signal.Signals(signum).name
        if os.getpid() != self._pid:
            os.environ[FLAG] = name  # a worker: its waits (until: ...) end at their next try
            return
        if os.environ.get(FLAG):
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            if signum == signal.SIGTERM:
                os.kill(os.getpid(), signal.SIGTERM)
            raise KeyboardInterrupt
        os.environ[FLAG] = name
        self._display.warning('esxdiag: %s: the tests stop; cleanup runs on every host. (%s again: abort '
                              'at once, without cleanup)' % (name, name))
