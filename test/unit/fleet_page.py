# What the fleet's unit tests share to render report.html: the collection's template
# (roles/esxdiag/templates/report.html.j2) with Jinja2 and the report filters it
# calls registered by their full names, as Ansible's template module would have them.
# A test without Jinja2 on the machine is skipped, not failed.
import os
import unittest

import fleet_matrix as fm
import fleet_vds_health as fv

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'esxi', 'fleet', 'collections',
                         'ansible_collections', 'esxdiag', 'fleet', 'roles', 'esxdiag', 'templates')


def render(report):
    """report.html for this report (report.json's content)."""
    try:
        import jinja2
    except ImportError:
        raise unittest.SkipTest('no jinja2')
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=False)
    env.filters.update({'esxdiag.fleet.esxdiag_preflight_line': fm.preflight_line,
                        'esxdiag.fleet.esxdiag_selftest_refused': fm.selftest_refused,
                        'esxdiag.fleet.esxdiag_uplink_rows': fm.uplink_rows,
                        'esxdiag.fleet.esxdiag_vds_rows': fv.vds_rows})
    return env.get_template('report.html.j2').render(
        esxdiag_fleet=report, esxdiag_grids=fm.matrices(report), esxdiag_bad=fm.failing(report),
        esxdiag_suspect=fm.suspects(report))
