/**
 * The confirmation page's texts in Bulgarian (part of the catalog in `bg.ts`, which holds the
 * rules for keys, placeholders and plural forms).
 * @module
 */

/** The Bulgarian texts of the confirmation page (`confirm.*`). */
export const BG_CONFIRM = {
  "confirm.already_confirmed_reports":
    "Тази партида вече е потвърдена за справки{eiks}. Сега иска също:",
  "confirm.already_confirmed_to_file":
    "Тази партида вече е потвърдена за подаване на: {what}{eiks}. Сега иска също:",
  "confirm.as_the_files_declare": "Според файловете",
  "confirm.batch": "Партида",
  "confirm.batch_scope":
    "В следващите {minutes} минути след потвърждението заявките на тази партида от същия интегратор и страница се изпълняват без нов въпрос, от името на избрания подател, само ако повтарят точно показано тук искане: същата декларация или справка, за същата фирма и период, със същите файлове (същото съдържание) или папка. Всичко друго — друга фирма, друг период, друга декларация или справка, друг или непълен набор от файлове — отваря тази страница отново само за новото.",
  "confirm.company_eik": "Фирма (ЕИК)",
  "confirm.confirm": "Потвърди",
  "confirm.confirm_and_read": "Потвърди и прочети",
  "confirm.confirm_the_sender": "Потвърдете подателя",
  "confirm.confirmed": "Потвърдено.",
  "confirm.confirmed_you_can_close": "Потвърдено. Можете да затворите този раздел.",
  "confirm.countdown_after": "сек.; след това искането се отказва автоматично.",
  "confirm.countdown_before": "Остават",
  "confirm.decline": "Откажи",
  "confirm.decline_batch_for": "Отказ или изтекло време отказва партидата за {minutes} минути.",
  "confirm.decline_batch_now":
    "Отказ или изтекло време отказва партидата: нищо не се подписва и подава.",
  "confirm.decline_request_now":
    "Отказ или изтекло време отказва заявката: нищо не се подписва и подава.",
  "confirm.declined_nothing_was_signed": "Отказано: нищо не е подписано.",
  "confirm.declined_only_what_was": "Отказано само новото; потвърденото по-рано остава.",
  "confirm.declined_the_whole_batch": "Отказано.",
  "confirm.declining_refuses_only_what":
    "Отказът отказва само новото; потвърденото по-рано остава.",
  "confirm.details": "Подробности",
  "confirm.files": "Файлове",
  "confirm.files_2": "Брой файлове",
  "confirm.files_sent_by_the": "Файлове от страницата",
  "confirm.for_the_period": "период {period}",
  "confirm.from_page": "От страница",
  "confirm.from_the_file": "(от файла)",
  "confirm.keep_tab_open":
    "Не затваряйте този раздел: след проверката тук ще се покаже резултатът.",
  "confirm.keep_tab_open_pin":
    "Не затваряйте този раздел: след проверката тук ще се покаже резултатът или въвеждането на ПИН кода.",
  "confirm.new_company": "Нова фирма",
  "confirm.no_batch": "— (без партида)",
  "confirm.not_a_qes": "не е КЕП",
  "confirm.nothing_signed": "Нищо не е подписано или изпратено към НАП.",
  "confirm.nothing_signed_no_pin":
    "Нищо не е подписано или изпратено към НАП и ПИН код не е поискан.",
  "confirm.not_bound": "— (не е обвързан със страница)",
  "confirm.nra": "(НАП)",
  "confirm.path_hidden": "Пътят съдържа скрити знаци: {hidden}.",
  "confirm.path_other_form":
    "Страницата изпрати този път в друг вид (с връщане към горни папки); горе е това, което агентът ще прочете.",
  "confirm.path_other_form_hidden":
    "Страницата изпрати този път в друг вид (с връщане към горни папки и скрити знаци {hidden}); горе е това, което агентът ще прочете.",
  "confirm.period": "Период",
  "confirm.read": "Прочетено",
  "confirm.refused_the_file_did": "Отказано: файлът не премина проверката",
  "confirm.requests": "Заявки",
  "confirm.sender": "Подател",
  "confirm.sign_and_file": "Подпиши и подай",
  "confirm.signature_pin": "ПИН код на подписа",
  "confirm.signed_you_can_close": "Подписано. Можете да затворите този раздел.",
  "confirm.step_1_of_2": "Стъпка 1 от 2: съгласие",
  "confirm.step_2_of_2": "Стъпка 2 от 2: подпис с ПИН код",
  "confirm.title_confirm": "Потвърждение на подател",
  "confirm.title_checking": "Проверка на файловете",
  "confirm.title_decided": "Потвърждение",
  "confirm.receipt": "Разписка",
  "confirm.test_mode_nothing_is": "Тестов режим: нищо не се подава към НАП.",
  "confirm.test_profile": "(тестов профил)",
  "confirm.the_agent_is_reading": "Агентът чете и проверява файловете…",
  "confirm.the_agent_reads_these":
    "Агентът ще прочете тези файлове и папки едва след като потвърдите; досега нищо не е прочетено.",
  "confirm.the_confirmation_covers_this":
    "Потвърждението важи само за тази заявка; следващата заявка ще пита отново.",
  "confirm.the_files_passed_their": "Файловете са проверени; следва ПИН кодът…",
  "confirm.the_files_were_read":
    "Файловете са прочетени и проверени: това са декларацията, фирмата и периодът, които се подават.",
  "confirm.the_files_were_read_2":
    "Файловете са прочетени и проверени; нищо повече не се иска. Можете да затворите този раздел.",
  "confirm.the_pin_is_not":
    "ПИН кодът не се иска сега: агентът първо ще прочете и провери файловете, после ще ви покаже какво е прочетено и ще поиска ПИН кода. Ако файл не е декларацията, за която е посочен, заявката се отказва и ПИН код не се иска.",
  "confirm.the_pin_stays_in":
    "ПИН кодът остава само в паметта на агента, за тази партида; не се записва и не се изпраща към уеб страницата.",
  "confirm.this_confirmation_is_no": "Това потвърждение вече не чака отговор.",
  "confirm.verb_file": "да подаде",
  "confirm.verb_read": "справка",
  "confirm.warnings": "Предупреждения",
  "confirm.warnings_do_not_stop":
    "Предупрежденията не спират подаването; ако нещо не е наред, откажете и поправете файловете.",
  "confirm.what_is_asked": "Какво се иска",
  "confirm.what_to_do": "Какво да направите: {todo}",
  "confirm.who_asks": "Кой пита",
  "confirm.will_be_read": "Ще бъде прочетено",
  "confirm.you_can_close_this": "Можете да затворите този раздел.",
  "confirm.you_confirm_only_what": "Потвърждавате само новото; отказът отказва само него.",
  "confirm.remote_approve_in_app": "Одобрете подписа в приложението на доставчика",
  "confirm.remote_part":
    "Доставчикът приема ограничен брой подписи наведнъж: това е одобрение {part} от {parts}.",
  "confirm.remote_waiting": "Агентът чака одобрението…",
  "confirm.remote_open_provider": "Отворете страницата на доставчика",
  "confirm.remote_declining":
    "Ако откажете при доставчика или не одобрите до 5 минути, нищо няма да бъде подадено.",
  "confirm.remote_approved": "Подписът е одобрен. Подаването продължава.",
  "confirm.remote_declined": "Подписът не е одобрен. Нищо не е подадено.",
  "confirm.remote_unknown": "Това одобрение вече не чака отговор.",
  "confirm.who_eik": "ЕИК",
  "confirm.who_verified": "проверен от оператора на услугата",
  "confirm.who_presents_as": "представя се като",
  "confirm.who_unverified": "непроверено",
  "confirm.who_unverified_warning":
    "Името не е проверено от оператора на услугата: всеки може да се регистрира с каквото име пожелае. Потвърдете само ако познавате страницата по-горе.",
  "confirm.otp_title": "Въведете еднократния код на подписа",
  "confirm.otp_sent": "Доставчикът изпрати код на телефона ви (SMS или известие).",
  "confirm.otp_device": "Кодът се показва в приложението или устройството на доставчика.",
  "confirm.otp_label": "Еднократен код",
  "confirm.otp_note": "Кодът се изпраща само на доставчика; агентът не го пази и не го записва.",
  "confirm.otp_sign": "Подпиши и подай",
  "confirm.otp_decline": "Откажи",
  "confirm.otp_declining":
    "Ако откажете или не въведете кода до 5 минути, нищо няма да бъде подадено.",
  "confirm.otp_given":
    "Кодът е предаден на доставчика. Подаването продължава само ако е верен; грешен код спира всичко, без да се подаде нищо.",
} as const;
