/* A stop signal (SIGINT, SIGTERM, SIGHUP) ends a run early, never its report: the
 * probes stop being sent, what already came back is read and counted, and the
 * report says what was measured and that the run was interrupted (exit 1). After
 * the first, any of the three ends the process at once, as it would without
 * esxmtu's handler. */
#ifndef ESXMTU_STOP_H
#define ESXMTU_STOP_H

/* catch the three signals from now on (the first one only); one that was ignored
 * when esxmtu started stays ignored */
void stop_watch(void);
/* the number of the first stop signal caught, 0 while none has come */
int stop_requested(void);

#endif
