/* The OOM decision and the budget watch's; see oom_verdict.h. */
#include "oom_verdict.h"

int sb_oom_verdict(const sb_oom_facts *f)
{
    int foreign_kill = f->sigkilled && !f->ours;
    if (f->outside)
        return f->oom_kills > 0 && foreign_kill ? SB_OOM_AROUND : SB_OOM_NO;
    if (f->oom_kills > 0)
        return SB_OOM_IN_GROUP;
    int64_t slack = f->limit / 16 > (8 << 20) ? f->limit / 16 : (8 << 20);
    int at_limit = f->limit > 0 && f->peak >= 0 && f->peak + slack >= f->limit;
    return f->oom_kills < 0 && foreign_kill && at_limit ? SB_OOM_IN_GROUP : SB_OOM_NO;
}

int sb_budget_watch_over(int64_t limit, int64_t ended, int64_t sum)
{
    return limit > 0 && ended == 0 && sum > limit;
}
