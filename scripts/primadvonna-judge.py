#!/usr/bin/env python3
"""Where a DVONN match against PrimaDvonna was won or lost: PrimaDvonna judges positions of it.

For each game of a `gipfzero match` (its --records file, and its --logs folder for K > 0),
PrimaDvonna plays both sides (`--color=3`) from a position of the game, and the result of
that game is read back as the first agent's (player 1 of the match, the network's): a share
of such results near the match's score says the games were decided before that position,
one well above it says the first agent still stood better there and lost it afterwards.

  K = 0   the position after the 49 placements (written from the record);
  K > 0   the position PrimaDvonna saw before its K-th movement turn (from its log: it
          writes the position before each of its turns as a `--state` string).

Each line of OUT is one judged position, JSON; a summary goes to standard output.
PrimaDvonna (github.com/maksverver/PrimaDvonna) is built outside the repository
(docs/RESULTS.md, "PrimaDvonna"); its --state, --color and --time options are its own.

usage: primadvonna-judge.py RECORDS LOGS OUT --at 0,4,8 [--time 10] [--seed 1]
                            [--gipfzero BIN] [--primadvonna BIN]
"""
import argparse
import json
import os
import re
import subprocess
import sys

DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
# PrimaDvonna's field numbers of the spaces, row by row (its IO.c).
ROWS = [[0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -1], [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, -1],
        [19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29], [-1, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39],
        [-1, -1, 40, 41, 42, 43, 44, 45, 46, 47, 48]]
STATE = re.compile(r'^[A-Za-z0-9*]{50}$')
TURN_LINE = re.compile(r'^(<--|--)')


def placement_state(placements):
    """PrimaDvonna's --state of the position after the 49 placements (White to move)."""
    values = [0] * 49
    for index, space in enumerate(placements):
        field = ROWS[int(space[1]) - 1][ord(space[0].lower()) - ord('a')]
        if field < 0 or values[field]:
            sys.exit(f'placement {index + 1} ({space}) is no free space')
        # The first three placements are the DVONN pieces; then White and Black alternate.
        values[field] = 1 if index < 3 else 2 + index % 2
    return 'C' + ''.join(DIGITS[v] for v in values)


def logged_states(path):
    """(turns played before it, state) for each movement-phase position in PrimaDvonna's log."""
    seen, states, first = 0, [], True
    with open(path) as log:
        for line in log:
            line = line.strip()
            if TURN_LINE.match(line):
                seen += 1
            elif STATE.match(line):
                # Playing Black, PrimaDvonna reads White's first placement without logging it.
                if first and line[0] == 'B':
                    seen += 1
                first = False
                if line[0] in 'CD':
                    states.append((seen, line))
    return states


def result(gipfzero, turns):
    """The winner ('1', '2', 'draw') and result text of a game, refereed by gipfzero."""
    commands = 'newgame dvonn\n' + ''.join(f'play {t}\n' for t in turns) + 'status\nquit\n'
    out = subprocess.run([gipfzero, 'engine', '--agent', 'random'], input=commands,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    errors = [line for line in out if line.startswith('error')]
    if errors:
        sys.exit(f'a judged game broke the rules: {errors[0]}')
    status = next(line for line in out if line.startswith('status')).split()
    if status[1] != 'over':
        sys.exit(f'a judged game did not end: {" ".join(status)}')
    return status[2], ' '.join(status[3:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('records')
    parser.add_argument('logs')
    parser.add_argument('out')
    parser.add_argument('--at', default='0', help='the positions: K values, comma separated')
    parser.add_argument('--time', default='10', help="PrimaDvonna's time for the judged game, both sides")
    parser.add_argument('--seed', default='1')
    parser.add_argument('--gipfzero', default='target/release/gipfzero')
    parser.add_argument('--primadvonna', default='~/.cache/gipfzero/primadvonna/player')
    args = parser.parse_args()
    primadvonna = os.path.expanduser(args.primadvonna)
    ks = [int(k) for k in args.at.split(',')]
    totals = {k: [0.0, 0.0, 0] for k in ks}
    with open(args.records) as records, open(args.out, 'w') as out:
        for line in records:
            record = json.loads(line)
            game = record['game']
            first_is_white = record['first_agent_plays'] == 1
            actual = record['outcome'] if first_is_white else -record['outcome']
            states = None
            for k in ks:
                if k == 0:
                    played, state = 49, placement_state(record['turns'][:49])
                else:
                    if states is None:
                        states = logged_states(f'{args.logs}/game-{game + 1:03d}-player2.log')
                    if k > len(states):
                        continue
                    played, state = states[k - 1]
                moves = subprocess.run([primadvonna, f'--state={state}', '--color=3', f'--time={args.time}',
                                        f'--seed={args.seed}'], stdin=subprocess.DEVNULL,
                                       capture_output=True, text=True, check=True).stdout.split()
                turns = [t.lower() for t in record['turns'][:played]] + [m.lower() for m in moves]
                winner, text = result(args.gipfzero, turns)
                white_score = {'1': 1.0, '2': 0.0, 'draw': 0.5}[winner]
                judged = white_score if first_is_white else 1.0 - white_score
                out.write(json.dumps({'game': game, 'k': k, 'turns_before': played, 'first_is_white': first_is_white,
                                      'judged': judged, 'actual': (actual + 1) / 2, 'judged_result': text,
                                      'actual_result': record['result']}) + '\n')
                out.flush()
                totals[k][0] += judged
                totals[k][1] += (actual + 1) / 2
                totals[k][2] += 1
    for k, (judged, actual, n) in totals.items():
        if n:
            print(f'K {k}: {n} positions, judged {judged / n:.3f} for the first agent, its actual score {actual / n:.3f}')


if __name__ == '__main__':
    main()
