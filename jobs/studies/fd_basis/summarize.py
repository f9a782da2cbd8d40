import json, sys, glob
for f in sys.argv[1:]:
    print('==', f)
    print(f"{'cfg':22s} {'reb/1k':>6s} {'(grw)':>5s} {'abs/1k':>6s} {'reb1st':>6s} {'reblast':>7s} {'sigmed':>8s} {'sigp5':>8s} {'sgeo_p5':>8s} {'sraw_med':>8s} {'Xmed':>6s} {'grMax':>7s} {'maxerr':>8s} {'Kdrift':>8s} {'cost/row 1st->last':>20s} {'U 1st->last':>14s} {'t[s]':>5s}")
    for line in open(f):
        if not line.startswith('{'): continue
        d = json.loads(line)
        fm = lambda x: ' n/a' if x is None else f"{x:.1e}"
        print(f"{d['cfg']:22s} {d['reb_per_k']:6.0f} {d['reb_growth_per_k']:5.0f} {d['absorb_per_k']:6.0f} {d['reb_first10']:6.0f} {d['reb_last10']:7.0f} {d['sig_med']:8.1e} {d['sig_p5']:8.1e} {d['sgeo_p5']:8.1e} {d['sraw_med']:8.1e} {fm(d['xn_med']):>6s} {fm(d['growth_max']):>7s} {max(d['errs']) if d['errs'] else float('nan'):8.1e} {max(d['kdrift']) if d['kdrift'] else float('nan'):8.1e} {d['cost_first10']:9.3g}->{d['cost_last10']:9.3g} {d['U_first10']:6d}->{d['U_last10']:6d} {d['time']:5.0f}")
