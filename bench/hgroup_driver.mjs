// Plays given decks with the hanab.live H-group bot (will-hanabi-bot/hanabi-bot) in self-play,
// for bench/hgroup_anchor.py. Our code: it only imports the bot's modules from a checkout
// whose path is given on the command line (the bot is GPL-3 and never part of this repo).
//
//     node bench/hgroup_driver.mjs /path/to/hanabi-bot
//
// stdin: one JSON object a line, {"seed": S, "players": N, "level": L, "deck": [[suit, rank], ...]}
// where deck[i] is the card at deck position i (0 = dealt first; suits 0..4 are the bot's
// Red Yellow Green Blue Purple). Seat 0 is dealt positions 0..h-1, seat 1 the next h, and so
// on; each play or discard draws the next position, as in our rules engine.
// stdout: one JSON object a line per deck, {"seed", "score", "strikes", "turns", "actions":
// [[type, target, value], ...], "error"} with hanab.live's action types (0 play, 1 discard,
// 2 colour clue, 3 number clue); a play's or discard's target is the card's deck position,
// a clue's is the seat. The game runs to OUR end rules (shared/RULES.md): a third strike, all
// fireworks complete, or the final round after the last card is drawn; it does not stop when
// the score reaches the most still possible (hanab.live does; the harness scores both).
// Anything the bot prints goes to stderr, so stdout carries only the results.

import * as path from 'node:path';
import * as readline from 'node:readline';
import { pathToFileURL } from 'node:url';

const botRoot = process.argv[2];
if (botRoot === undefined) {
	process.stderr.write('usage: node hgroup_driver.mjs BOT_CHECKOUT\n');
	process.exit(2);
}

// The bot logs with console.log; keep stdout for our result lines only.
const writeResult = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
console.log = (...args) => console.error(...args);

const load = (rel) => import(pathToFileURL(path.join(path.resolve(botRoot), 'src', rel)).href);

const { default: HGroup } = await load('conventions/h-group.js');
const { State } = await load('basics/State.js');
const { getVariant } = await load('variants.js');
const Utils = await load('tools/util.js');
const { default: logger } = await load('tools/logger.js');

const SEAT_NAMES = ['Alice', 'Bob', 'Cathy', 'Donald', 'Emily'];
const variant = await getVariant('No Variant');
const MAX_SCORE = variant.suits.length * 5;
logger.setLevel(logger.LEVELS.ERROR);

/** What the seat `viewer` is told about the card at `position` when `holder` draws it. */
function drawEvent(deck, viewer, holder, position) {
	const seen = viewer !== holder;
	return {
		type: 'draw', playerIndex: holder, order: position,
		suitIndex: seen ? deck[position].suitIndex : -1,
		rank: seen ? deck[position].rank : -1,
	};
}

/** One self-play game on `deck` (identities in deal order), each seat with its own bot;
 * the actions taken are appended to `actions`. */
async function playDeck(deck, players, level, actions) {
	const names = SEAT_NAMES.slice(0, players);
	Utils.globalModify({ variant, playerNames: names, cache: new Map() });

	// seats[i] is seat i's own view of the game (the bot's games are immutable values).
	let seats = names.map((_, seat) => {
		const game = new HGroup(new State(names, seat, variant, {}), false, undefined, level);
		game.catchup = true;
		return game;
	});
	const handSize = seats[0].state.handSize;
	let next = 0;  // the next deck position to draw
	for (let holder = 0; holder < players; holder++) {
		for (let k = 0; k < handSize; k++, next++)
			seats = seats.map((game, viewer) => game.handle_action(drawEvent(deck, viewer, holder, next)));
	}

	let turn = 0;
	let current = 0;
	const over = () => {
		const s = seats[0].state;
		return s.endgameTurns === 0 || s.strikes >= 3 || s.score >= MAX_SCORE;
	};
	while (!over()) {
		if (turn > 0)
			seats = seats.map(game => game.handle_action({ type: 'turn', num: turn, currentPlayerIndex: current }));

		const chosen = await seats[current].take_action();
		const type = chosen.type;
		const target = chosen.target;
		const value = chosen.value ?? 0;
		actions.push([type, target, value]);

		const drawsAfter = (type === 0 || type === 1) && next < deck.length;
		seats = seats.map(game => game.handle_action(
			Utils.performToAction(game.state, { type, target, value }, current, deck)));
		if (drawsAfter && !over()) {
			seats = seats.map((game, viewer) => game.handle_action(drawEvent(deck, viewer, current, next)));
			next++;
		}
		current = (current + 1) % players;
		turn++;
	}
	const { score, strikes } = seats[0].state;
	return { score, strikes, turns: turn, actions };
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
	if (line.trim() === '')
		continue;
	const job = JSON.parse(line);
	const deck = job.deck.map(([suitIndex, rank]) => Object.freeze({ suitIndex, rank }));
	const started = process.hrtime.bigint();
	const actions = [];  // filled as the game goes, so a game the bot breaks off keeps them
	let result;
	try {
		result = { ...(await playDeck(deck, job.players, job.level, actions)), error: null };
	}
	catch (err) {
		// A bot that throws cannot go on: the harness scores the game as unfinished.
		result = { score: null, strikes: null, turns: actions.length, actions, error: String(err?.stack ?? err) };
	}
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	writeResult({ seed: job.seed, ...result, seconds });
}
