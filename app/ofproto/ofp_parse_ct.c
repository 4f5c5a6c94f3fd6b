/* SPDX-License-Identifier: BSD-3-Clause
 * The ct(...) and sg(...) actions of the flow parser, in ovs-ofctl's
 * syntax (ovs-actions(7)) and vxswitch's sg():
 *   ct(commit,zone=N|zone=NXM_NX_REGn[0..15],table=T,nat,
 *      nat(src|dst=IP[-IP][:PORT[-PORT]]),
 *      exec(set_field:V->ct_mark|ct_label, load:...))
 *   sg(allow|deny[,zone=N][,nat|nat(src|dst=...)]) (deny: bare nat only;
 *   no commit: allow commits what it lets in, deny never)
 * with OVS's checks: exec() and nat with addresses need commit, and (in
 * ofp_check_pipeline_actions) the rule must match ip.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ofp_parse_priv.h"

/* ---- ct(...) and sg(...) ---------------------------------------------- */

/* Splits "a,b(c,d),e" at depth-0 commas, in place. */
static int
split_args(char *s, char **args, int max)
{
	int n = 0, depth = 0;

	if (!*s)
		return 0;
	args[n++] = s;
	for (; *s; s++) {
		if (*s == '(')
			depth++;
		else if (*s == ')')
			depth--;
		else if (*s == ',' && !depth) {
			*s = '\0';
			if (n == max)
				return -1;
			args[n++] = s + 1;
		}
	}
	return n;
}

/* An IPv6 address as OVS's str_to_nat_range scans one, bare or in
 * brackets: where it ends, or NULL. */
static const char *
scan_ipv6(const char *s, uint8_t a[16])
{
	bool br = *s == '[';
	const char *b = s + br;
	size_t n = strspn(b, "0123456789abcdefABCDEF:.");
	char buf[INET6_ADDRSTRLEN + 1];

	if (!n || n >= sizeof buf || (br && b[n] != ']'))
		return NULL;
	memcpy(buf, b, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET6, buf, a) != 1)
		return NULL;
	return b + n + br;
}

/* IPV6[-IPV6][:PORT[-PORT]], OVS's syntax: an address in brackets or not
 * (then a port after it would be read as part of it) */
static int
parse_nat_range6(struct parser *p, char *s, struct ofp_nat *nat)
{
	const char *e = scan_ipv6(s, nat->ip6_min);
	uint64_t lo, hi = 0;
	char *end;

	if (!e)
		return ofp_fail(p, "nat: invalid nat range \"%s\"", s);
	memcpy(nat->ip6_max, nat->ip6_min, 16);
	if (*e == '-' && (!(e = scan_ipv6(e + 1, nat->ip6_max)) ||
			  memcmp(nat->ip6_max, nat->ip6_min, 16) < 0))
		return ofp_fail(p, "nat: invalid nat range \"%s\"", s);
	if (*e == ':') {
		lo = strtoull(e + 1, &end, 10);
		if (end == e + 1 || !lo || lo > UINT16_MAX)
			return ofp_fail(p, "nat: bad port range in \"%s\"", s);
		hi = lo;
		if (*end == '-') {
			e = end + 1;
			hi = strtoull(e, &end, 10);
			if (end == e || hi < lo || hi > UINT16_MAX)
				return ofp_fail(p, "nat: bad port range in "
						"\"%s\"", s);
		}
		nat->port_min = (uint16_t)lo;
		nat->port_max = (uint16_t)hi;
		e = end;
	}
	if (*e)
		return ofp_fail(p, "nat: garbage (%s) after nat range \"%s\"",
				e, s);
	nat->v6 = true;
	return 0;
}

/* IP[-IP][:PORT[-PORT]] */
static int
parse_nat_range(struct parser *p, char *s, struct ofp_nat *nat)
{
	char *colon = strchr(s, ':'), *dash;
	uint64_t lo, hi;

	/* an IPv6 address has two colons at least; an IPv4 range one */
	if (*s == '[' || (colon && strchr(colon + 1, ':')))
		return parse_nat_range6(p, s, nat);
	if (colon) {
		*colon++ = '\0';
		dash = strchr(colon, '-');
		if (dash)
			*dash++ = '\0';
		if (!ofp_parse_uint(colon, UINT16_MAX, &lo) || !lo ||
		    (dash && (!ofp_parse_uint(dash, UINT16_MAX, &hi) ||
			      hi < lo)))
			return ofp_fail(p, "nat: bad port range '%s%s%s'",
					colon, dash ? "-" : "",
					dash ? dash : "");
		nat->port_min = (uint16_t)lo;
		nat->port_max = dash ? (uint16_t)hi : (uint16_t)lo;
	}
	dash = strchr(s, '-');
	if (dash)
		*dash++ = '\0';
	if (!ofp_parse_ipv4(s, &nat->ip_min) ||
	    (dash && !ofp_parse_ipv4(dash, &nat->ip_max)))
		return ofp_fail(p, "nat: bad IPv4 address range '%s%s%s'", s,
				dash ? "-" : "", dash ? dash : "");
	if (!dash)
		nat->ip_max = nat->ip_min;
	if (rte_be_to_cpu_32(nat->ip_max) < rte_be_to_cpu_32(nat->ip_min))
		return ofp_fail(p, "nat: address range '%s-%s' runs backwards",
				s, dash);
	return 0;
}

/* nat, nat(src[=RANGE]), nat(dst[=RANGE]) */
static int
parse_nat(struct parser *p, char *s, struct ofp_nat *nat)
{
	size_t n = strlen(s);
	char *in;

	if (nat->kind != OFP_NAT_NONE)
		return ofp_fail(p, "nat: given twice");
	if (!strcmp(s, "nat")) {
		nat->kind = OFP_NAT_PLAIN;
		return 0;
	}
	if (strncmp(s, "nat(", 4) || s[n - 1] != ')')
		return ofp_fail(p, "nat: expected nat or nat(src|dst=...), "
				"got '%s'", s);
	s[n - 1] = '\0';
	in = s + 4;
	if (!strncmp(in, "src", 3))
		nat->kind = OFP_NAT_SRC;
	else if (!strncmp(in, "dst", 3))
		nat->kind = OFP_NAT_DST;
	else
		return ofp_fail(p, "nat: expected src or dst, got '%s'", in);
	in += 3;
	if (!*in)
		return 0;
	if (*in == ',')
		return ofp_fail(p, "nat: '%s' is not supported (no persistent,"
				" hash or random)", in + 1);
	if (*in != '=')
		return ofp_fail(p, "nat: expected '=' after src/dst in "
				"'nat(%s)'", s + 4);
	return parse_nat_range(p, in + 1, nat);
}

/* zone=N or zone=NXM_NX_REGn[a..b] (16 bits) */
static int
parse_zone(struct parser *p, const char *what, const char *s,
	   struct ofp_ct *ct)
{
	struct ofp_subfield sf;
	uint64_t v;

	if (isdigit((unsigned char)s[0])) {
		if (!ofp_parse_uint(s, UINT16_MAX, &v))
			return ofp_fail(p, "%s: bad zone '%s' (0..65535)",
					what, s);
		ct->zone = (uint16_t)v;
		return 0;
	}
	if (ofp_parse_subfield(p, what, s, &sf))
		return -1;
	if (sf.field >= OFP_N_REGS || sf.nbits != 16)
		return ofp_fail(p, "%s: zone from a field takes 16 bits of a "
				"register (NXM_NX_REGn[0..15]), not '%s'",
				what, s);
	ct->zone_reg = (int8_t)(sf.field - OFP_MF_REG0);
	ct->zone_ofs = sf.ofs;
	ct->zone_nbits = sf.nbits;
	return 0;
}

/* exec(set_field:V->ct_mark,load:V->NXM_NX_CT_LABEL[],...) */
static int
parse_exec(struct parser *p, char *s, struct ofp_ct *ct)
{
	char *args[OFP_MAX_CT_EXEC + 1];
	int n = split_args(s, args, OFP_MAX_CT_EXEC + 1);

	if (n < 0 || n > OFP_MAX_CT_EXEC)
		return ofp_fail(p, "ct: exec() takes at most %d actions",
				OFP_MAX_CT_EXEC);
	for (int i = 0; i < n; i++) {
		char *colon = strchr(args[i], ':');
		bool set_field;
		struct ofp_load *l = &ct->exec[ct->n_exec];

		if (!colon)
			return ofp_fail(p, "ct: unsupported exec action '%s'",
					args[i]);
		*colon = '\0';
		set_field = !strcmp(args[i], "set_field");
		if (!set_field && strcmp(args[i], "load"))
			return ofp_fail(p, "ct: unsupported exec action '%s' "
					"(set_field or load to ct_mark or "
					"ct_label)", args[i]);
		if (ofp_parse_load(p, args[i], colon + 1, set_field, l))
			return -1;
		if (l->field < OFP_N_REGS)
			return ofp_fail(p, "ct: exec() writes only ct_mark and "
					"ct_label, not reg%d", l->field);
		ct->n_exec++;
	}
	return 0;
}

static int
ct_argument(struct parser *p, const char *what, char *arg, struct ofp_ct *ct)
{
	size_t n = strlen(arg);

	if (!strcmp(arg, "commit")) {
		/* sg() decides what it commits: accepting the word would
		 * read as if it changed something */
		if (ct->is_sg)
			return ofp_fail(p, "sg: no commit argument (sg(allow) "
					"commits every new connection it lets "
					"in; sg(deny) never commits)");
		ct->commit = true;
		return 0;
	}
	if (!strncmp(arg, "zone=", 5))
		return parse_zone(p, what, arg + 5, ct);
	if (!strncmp(arg, "nat", 3) && (!arg[3] || arg[3] == '('))
		return parse_nat(p, arg, &ct->nat);
	if (!ct->is_sg && !strncmp(arg, "table=", 6))
		return ofp_parse_table_number(p, what, arg + 6, &ct->table);
	if (!ct->is_sg && !strncmp(arg, "exec(", 5) && arg[n - 1] == ')') {
		arg[n - 1] = '\0';
		return parse_exec(p, arg + 5, ct);
	}
	return ofp_fail(p, "%s: unsupported argument '%s'", what, arg);
}

/* ct(...) or sg(...): the text inside the parentheses. */
int
ofp_parse_ct(struct parser *p, char *inside, bool is_sg, struct ofp_action *a)
{
	const char *what = is_sg ? "sg" : "ct";
	struct ofp_rule *r = p->rule;
	char *args[16];
	int n = split_args(inside, args, 16), first = 0;
	struct ofp_ct *ct;

	if (r->n_ct == OFP_MAX_CT)
		return ofp_fail(p, "%s: at most %d ct() and sg() actions per "
				"rule", what, OFP_MAX_CT);
	if (n < 0)
		return ofp_fail(p, "%s: too many arguments", what);
	ct = &r->ct[r->n_ct];
	memset(ct, 0, sizeof *ct);
	ct->is_sg = is_sg;
	ct->table = OFP_TABLE_ALL;
	ct->zone_reg = -1;
	if (is_sg) {
		if (n < 1 || (strcmp(args[0], "allow") &&
			      strcmp(args[0], "deny")))
			return ofp_fail(p, "sg: the first argument is allow or "
					"deny ('sg(%s)')", n ? args[0] : "");
		ct->allow = !strcmp(args[0], "allow");
		first = 1;
	}
	for (int i = first; i < n; i++)
		if (ct_argument(p, what, args[i], ct))
			return -1;
	if (ct->n_exec && !ct->commit)
		return ofp_fail(p, "ct: exec() needs commit");
	if ((ct->nat.kind == OFP_NAT_SRC || ct->nat.kind == OFP_NAT_DST) &&
	    !ct->commit && !is_sg)
		return ofp_fail(p, "ct: nat(src|dst) needs commit");
	/* deny creates nothing: a bare nat (apply a session's own NAT,
	 * e.g. un-NAT the replies of the sessions an allow NATed) is all
	 * it can take */
	if (is_sg && !ct->allow &&
	    ct->nat.kind && ct->nat.kind != OFP_NAT_PLAIN)
		return ofp_fail(p, "sg: deny takes no nat(src|dst) (a denied "
				"connection is never created; a bare nat "
				"applies its session's)");
	a->type = is_sg ? OFPACT_SG : OFPACT_CT;
	a->slot = r->n_ct++;
	return 0;
}

