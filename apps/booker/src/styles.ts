/** The booker's look, inside its shadow root only; themed through --sched-accent, --sched-radius and --sched-font. */
export const BOOKER_CSS = `
:host { display: block; contain: content; }
.booker {
  all: initial; display: block; box-sizing: border-box; max-width: 44rem; padding: 1rem;
  font: 15px/1.45 var(--sched-font, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
  color: #1f2328; background: #fff; border: 1px solid #d0d7de; border-radius: var(--sched-radius, 10px);
}
.booker *, .booker *::before, .booker *::after { box-sizing: border-box; font-family: inherit; color: inherit; }
.booker h2 { margin: 0 0 .25rem; font-size: 1.2rem; font-weight: 600; }
.booker h3 { margin: .75rem 0 .5rem; font-size: 1rem; font-weight: 600; }
p { margin: .25rem 0; }
.muted { color: #57606a; }
.row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; justify-content: space-between; }
button, input, select, textarea {
  border: 1px solid #8c959f; border-radius: calc(var(--sched-radius, 10px) / 2); background: #fff; padding: .45rem .6rem;
  min-height: 2.5rem; cursor: pointer;
}
input, select, textarea { cursor: text; width: 100%; }
select { cursor: pointer; }
button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, a:focus-visible {
  outline: 3px solid var(--sched-accent, #0969da); outline-offset: 2px;
}
button:disabled { cursor: not-allowed; color: #8c959f; border-color: #d0d7de; background: #f6f8fa; }
.primary { background: var(--sched-accent, #0969da); border-color: var(--sched-accent, #0969da); color: #fff; font-weight: 600; }
.grid { display: grid; grid-template-columns: repeat(7, minmax(0, 1fr)); gap: .25rem; margin: .5rem 0; }
.grid .weekday { text-align: center; font-size: .8rem; color: #57606a; padding: .25rem 0; }
.grid button { padding: .4rem 0; min-width: 0; }
.grid button.has { border-color: var(--sched-accent, #0969da); font-weight: 600; }
.grid button[aria-pressed='true'] { background: var(--sched-accent, #0969da); color: #fff; }
.times { display: grid; grid-template-columns: repeat(auto-fill, minmax(6.5rem, 1fr)); gap: .4rem; list-style: none; padding: 0; margin: .5rem 0; }
.times button { width: 100%; }
label { display: block; margin: .6rem 0 .2rem; font-weight: 600; }
label.check { display: flex; gap: .5rem; align-items: center; font-weight: 400; }
label.check input { width: auto; min-height: 0; }
.error { color: #b42318; margin: .2rem 0; font-size: .9rem; }
.status { margin: .5rem 0; padding: .5rem .75rem; border-radius: calc(var(--sched-radius, 10px) / 2); background: #ddf4ff; }
.status:empty { display: none; }
.actions { display: flex; gap: .5rem; margin-top: 1rem; flex-wrap: wrap; }
a { color: var(--sched-accent, #0969da); }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
