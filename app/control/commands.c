/* SPDX-License-Identifier: BSD-3-Clause
 * vxswitch-ctl commands, named after ovs-ofctl / ovs-appctl where the
 * meaning is the same, one file per family (commands.h). All run in the
 * control thread; PMD-owned state (megaflows) is read through pmd_call(). */
#include <stdio.h>
#include "cmd_util.h"
#include "commands.h"
#include "ds.h"
#include "ofproto.h"
#include "of_chan.h"
#include "ovsdb_show.h"
#include "state.h"

void
print_exit_stats(FILE *f)
{
	struct ds out;
	const char *argv[] = { "show", NULL };
	const char *stats_argv[] = { "dpif-netdev/pmd-stats-show", "-m", NULL };

	ds_init(&out);
	cmd_show(1, argv, false, &out, NULL);
	cmd_pmd_stats_show(2, stats_argv, false, &out, NULL);
	fputs(ds_cstr(&out), f);
	ds_destroy(&out);
}

int
cmd_changed_ok(struct ds *out, bool publish)
{
	if (publish)
		ofproto_publish();
	state_changed();
	ds_put_cstr(out, "OK\n");
	return 0;
}

void
commands_register(void)
{
	cmd_show_register();
	cmd_flows_register();
	cmd_dpctl_register();
	cmd_pmd_register();
	cmd_tnl_register();
	cmd_vlog_register();
	cmd_port_register();
	cmd_ct_register();
	cmd_ipf_register();
	cmd_trace_register();
	cmd_state_register();
	ovsdb_show_register();
	of_chan_register();
}
