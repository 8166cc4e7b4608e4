/**
 * The texts of the agent's life on the accountant's desk in Bulgarian (part of the catalog in
 * `bg.ts`, which holds the rules for keys, placeholders and plural forms): stopping the agent,
 * how to open the console on this computer's system, a connection of another user, and the
 * accountant's records in words (a sender's password or PIN, test mode's words).
 * @module
 */

/** The Bulgarian texts of stopping the agent and opening its console (`stop.*`, `open.*`). */
export const BG_DESK = {
  "stop.stop_the_agent": "Спри агента",
  "stop.title": "Спиране на агента",
  "stop.what_happens":
    "Агентът ще довърши подаванията, които вече са тръгнали, ще откаже чакащите потвърждения и ще спре. Докато не работи, страниците на интеграторите не могат да подават през него.",
  "stop.yes": "Да, спри агента",
  "stop.cancel": "Отказ",
  "stop.stopping":
    "Агентът спира. Подаванията, които вече са тръгнали, се довършват; подаване, прекъснато по средата, се показва като „неизвестно“ и се проверява при следващото стартиране.",
  "stop.start_again_windows":
    "За да го стартирате отново: менюто „Старт“ → „Агент за подаване към НАП“.",
  "stop.start_again_darwin":
    "За да го стартирате отново: отворете „Агент за подаване“ от папка „Applications“.",
  "stop.start_again_other": "За да го стартирате отново: изпълнете {command} в терминал.",
  "open.windows":
    "Отворете менюто „Старт“ и изберете „Агент за подаване към НАП“ или щракнете иконата на агента до часовника и изберете „Отвори конзолата“.",
  "open.darwin":
    "Отворете „Агент за подаване“ от папка „Applications“ (или изпълнете {command} в Terminal).",
  "open.other":
    "Изпълнете {command} в терминал (или стартирайте агента отново: щом той вече работи, отваря конзолата).",
  "open.session_gone":
    "Тази страница е от по-ранно отваряне на конзолата: агентът е стартиран отново или сесията е изтекла.",
  "open.open_it": "Отвори конзолата",
  "open.offer":
    "Или натиснете бутона: агентът отваря конзолата в нов раздел на браузъра, на същата страница.",
  "open.opened":
    "Агентът отвори конзолата в нов раздел на браузъра. Ако не се появи, отворете я както е описано по-долу.",
  "senders.secret_password": "парола",
  "senders.secret_pin": "ПИН",
  "follow.sending_test": "{decl}: изпраща се към тестовия портал…",
  "log.console stop": "спиране на агента от конзолата",
  "log.agent stop asked": "поискано спиране на агента (agent stop)",
  "log.console reopened": "конзолата е отворена отново от страницата без сесия",
  "log.connection of another OS user refused": "отказана връзка от програма на друг потребител",
} as const;
