! The Fortran module end to end, at any rank count: reads examples ("label nnz j1 v1 j2 v2 ...", global
! 1-based j, written by c_api/run.sh from the LIBSVM file), trains with adasketch_step_sparse, checks a
! checkpoint round trip and saves the model for run.sh to compare with the CLI's. With LOSS, SETTINGS
! hold a bias and the data's labels ("bias=B labels=..."), given also as adasketch_create's arguments.
! Usage: train_fortran DATA ALGORITHM ELL MODEL CHECKPOINT [SETTINGS [LOSS]]  (SETTINGS: adasketch_create's)
program train_fortran
  use, intrinsic :: iso_c_binding, only: c_int64_t, c_double
  use mpi
  use adasketch
  implicit none
  integer, parameter :: max_rows = 4096, max_nnz = 256
  character(len=512) :: data, algorithm, ell_text, model, checkpoint, settings, loss
  real(c_double) :: labels(max_rows), values(max_nnz, max_rows), v(max_nnz), bias, label, zeros(max_rows)
  real(c_double), allocatable :: distinct(:), intercept(:), scores(:)
  integer(c_int64_t) :: indices(max_nnz, max_rows), idx(max_nnz), dim, lo, hi, ell, steps
  integer :: nnz(max_rows), n, i, e, k, status, ierr, rank, unit, io, differ, at, outputs
  type(adasketch_learner) :: learner, resumed
  real(c_double), allocatable :: a(:), b(:)
  character(len=:), allocatable :: message
  logical :: decided
  real(c_double) :: chosen_eta, chosen_alpha

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, data)
  call get_command_argument(2, algorithm)
  call get_command_argument(3, ell_text)
  call get_command_argument(4, model)
  call get_command_argument(5, checkpoint)
  read (ell_text, *) ell
  settings = ''
  if (command_argument_count() >= 6) call get_command_argument(6, settings)
  loss = ''
  if (command_argument_count() >= 7) call get_command_argument(7, loss)

  open (newunit=unit, file=trim(data), status='old', action='read')
  n = 0
  dim = 0
  do
    read (unit, *, iostat=io) labels(n + 1), nnz(n + 1), (indices(e, n + 1), values(e, n + 1), e = 1, nnz(n + 1))
    if (io /= 0) exit
    n = n + 1
    if (nnz(n) > 0) dim = max(dim, indices(nnz(n), n))
    if (n == max_rows) exit
  end do
  close (unit)

  call create(learner, trim(settings))
  call check('adasketch_create')
  call adasketch_local_range(learner, lo, hi, status)
  call check('adasketch_local_range')
  do i = 1, n
    call local_entries(i)
    call adasketch_step_sparse(learner, idx(1:k), v(1:k), labels(i), status)
    call check('adasketch_step_sparse')
    if (i == n / 2) then
      call adasketch_save_checkpoint(learner, trim(checkpoint), status)
      call check('adasketch_save_checkpoint')
    end if
  end do
  call adasketch_save_model(learner, trim(model), status)
  call check('adasketch_save_model')
  if (index(settings, 'auto_tune=true') > 0) then  ! --auto: the race (150 of 400 examples in run.sh) is over
    call adasketch_auto_choice(learner, decided, chosen_eta, chosen_alpha, status)
    call check('adasketch_auto_choice')
    if (.not. decided) then
      print '(a)', 'train_fortran: the --auto race is not over'
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end if

  ! Restored from the checkpoint after n/2 examples and trained on the rest: the same weights.
  call create(resumed, trim(settings))
  call check('adasketch_create')
  call adasketch_load_checkpoint(resumed, trim(checkpoint), status)
  call check('adasketch_load_checkpoint')
  call adasketch_steps(resumed, steps, status)
  do i = int(steps) + 1, n
    call local_entries(i)
    call adasketch_step_sparse(resumed, idx(1:k), v(1:k), labels(i), status)
    call check('adasketch_step_sparse (resumed)')
  end do
  call adasketch_outputs(learner, outputs, status)
  call check('adasketch_outputs')
  allocate (a(max(hi - lo + 1, 0_c_int64_t) * outputs), b(max(hi - lo + 1, 0_c_int64_t) * outputs))
  call adasketch_weights(learner, a, status)
  call adasketch_weights(resumed, b, status)
  differ = merge(1, 0, any(transfer(a, [0_c_int64_t]) /= transfer(b, [0_c_int64_t])) .or. steps /= n / 2)  ! bit for bit
  call MPI_Allreduce(MPI_IN_PLACE, differ, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (differ /= 0) then
    print '(a)', 'train_fortran: the resumed learner differs'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if

  if (len_trim(loss) > 0) call check_bias_and_labels()

  ! Hyperparameters as arguments or by name in the settings text: the same learner, bit for bit (the
  ! arguments' reals go to the library as text, which must read back to the same doubles).
  call adasketch_free(resumed)
  call adasketch_free(learner)
  if (len_trim(loss) > 0) then  ! the bias and the labels as arguments
    distinct = sorted_distinct(labels(1:n))
    at = index(settings, 'bias=') + 5
    read (settings(at:index(settings(at:), ' ') + at - 2), *) bias
    call adasketch_create(learner, MPI_COMM_WORLD, dim, trim(algorithm), status, ell=ell, loss=trim(loss), &
                          bias=bias, labels=distinct)
    call check('adasketch_create (bias and labels as arguments)')
    call create(resumed, trim(settings))
  else
  call adasketch_create(learner, MPI_COMM_WORLD, dim, trim(algorithm), status, ell=ell, eta=0.3_c_double, &
                        alpha0=3.7_c_double, lambda2=1.0e-3_c_double)
  call check('adasketch_create (arguments)')
  call adasketch_create(resumed, MPI_COMM_WORLD, dim, trim(algorithm), status, ell=ell, &
                        settings='eta=0.3 alpha0=3.7 lambda2=0.001')
  end if
  call check('adasketch_create (settings)')
  do i = 1, n
    call local_entries(i)
    call adasketch_step_sparse(learner, idx(1:k), v(1:k), labels(i), status)
    call check('adasketch_step_sparse (arguments)')
    call adasketch_step_sparse(resumed, idx(1:k), v(1:k), labels(i), status)
    call check('adasketch_step_sparse (settings)')
  end do
  call adasketch_weights(learner, a, status)
  call adasketch_weights(resumed, b, status)
  differ = merge(1, 0, any(transfer(a, [0_c_int64_t]) /= transfer(b, [0_c_int64_t])))
  call MPI_Allreduce(MPI_IN_PLACE, differ, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (differ /= 0) then
    print '(a)', 'train_fortran: the learner of the arguments differs from the learner of the settings'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if

  ! An unknown algorithm: a status and a message.
  call adasketch_free(resumed)
  call adasketch_create(resumed, MPI_COMM_WORLD, dim, 'no-such-learner', status)
  message = adasketch_last_error()
  if (status == ADASKETCH_OK .or. index(message, 'unknown algorithm') == 0) then
    print '(a)', 'train_fortran: an unknown algorithm was not refused'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if

  ! A hyperparameter the table lacks: a status and a message naming it.
  call adasketch_create(resumed, MPI_COMM_WORLD, dim, trim(algorithm), status, settings='no_such=1')
  message = adasketch_last_error()
  if (status == ADASKETCH_OK .or. index(message, "unknown hyperparameter 'no_such'") == 0) then
    print '(a)', 'train_fortran: an unknown hyperparameter was not refused'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if

  if (rank == 0) print '(a, a, a, i0, a)', 'train_fortran: ', trim(algorithm), ', ', n, ' examples'
  call adasketch_free(learner)
  call MPI_Finalize(ierr)

contains

  ! A learner of the run's algorithm and ELL with these settings (and LOSS when given).
  subroutine create(l, text)
    type(adasketch_learner), intent(out) :: l
    character(len=*), intent(in) :: text
    if (len_trim(loss) > 0) then
      call adasketch_create(l, MPI_COMM_WORLD, dim, trim(algorithm), status, ell=ell, settings=text, loss=trim(loss))
    else
      call adasketch_create(l, MPI_COMM_WORLD, dim, trim(algorithm), status, ell=ell, settings=text)
    end if
  end subroutine create

  ! The intercepts are the scores of the zero example (B·W(d + 1, :), on every rank alike), and a
  ! predicted label is one of the data's.
  subroutine check_bias_and_labels()
    allocate (intercept(outputs), scores(outputs))
    zeros = 0
    call adasketch_intercept(learner, intercept, status)
    call check('adasketch_intercept')
    call adasketch_predict_dense(learner, zeros(1:max(hi - lo + 1, 0_c_int64_t)), scores, status)
    call check('adasketch_predict_dense')
    ! to the round-off of the lazy forms' scores (the bound of c_api/train.c's model check)
    differ = merge(1, 0, any(abs(intercept - scores) > 1.0e-6_c_double * (1 + abs(intercept))))
    call local_entries(1)
    call adasketch_predict_label_sparse(learner, idx(1:k), v(1:k), label, status)
    call check('adasketch_predict_label_sparse')
    if (.not. any(abs(labels(1:n) - label) <= 0)) differ = 1
    call MPI_Allreduce(MPI_IN_PLACE, differ, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    if (differ /= 0) then
      print '(a)', 'train_fortran: the intercept is not the zero example''s score, or a label is not the data''s'
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine check_bias_and_labels

  ! The distinct values of x, ascending.
  function sorted_distinct(x) result(out)
    real(c_double), intent(in) :: x(:)
    real(c_double), allocatable :: out(:)
    real(c_double) :: next
    out = [real(c_double) ::]
    next = minval(x)
    do while (any(x >= next))
      out = [out, next]
      if (.not. any(x > next)) exit
      next = minval(x, mask=x > next)
    end do
  end function sorted_distinct

  ! Row i's entries on this rank, as 1-based local indices.
  subroutine local_entries(i)
    integer, intent(in) :: i
    k = 0
    do e = 1, nnz(i)
      if (indices(e, i) >= lo .and. indices(e, i) <= hi) then
        k = k + 1
        idx(k) = indices(e, i) - lo + 1
        v(k) = values(e, i)
      end if
    end do
  end subroutine local_entries

  subroutine check(what)
    character(len=*), intent(in) :: what
    if (status /= ADASKETCH_OK) then
      print '(a, a, a, a)', 'train_fortran: ', what, ': ', adasketch_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine check

end program train_fortran
